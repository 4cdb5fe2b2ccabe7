/**
 * `toolweave check`: connects to every server, builds every composite against the tools as they are
 * now, and runs each composite's examples as dry runs; one line each, non-zero on any problem.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, FS_SERVER, liveProcesses, processesLeft, type Project } from '../mcp/helpers.js';
import { runBin } from './proxy-process.js';

let project: Project;
let configDir: string;
beforeAll(async () => {
  project = await copyProject('toolweave-check-');
  configDir = path.join(project.root, '.toolweave');
  await mkdir(path.join(configDir, 'specs'), { recursive: true });
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

/** A composite that reads a module and its test and saves a note: the note is a side effect. */
async function reviewModule(expectedTest: string) {
  return {
    name: 'review_module',
    description: 'Read a module and its test, and save a note.',
    inputSchema: { type: 'object', properties: { file: { type: 'string' }, test: { type: 'string' }, note: { type: 'string' } }, required: ['file', 'test', 'note'] },
    spec: {
      steps: [
        { name: 'both', combinator: 'gather', calls: {
          source: { tool: 'read_text_file', inputMapping: { path: '$input.file' } },
          test: { tool: 'read_text_file', inputMapping: { path: '$input.test' } },
        } },
        { name: 'note', tool: 'write_file', inputMapping: { path: '$input.note', content: '$steps.both.test' } },
      ],
      output: { test: '$steps.both.test', saved: '$steps.note' },
    },
    examples: [{
      input: { file: 'src/app/cache.js', test: 'test/cache.test.json', note: 'note.txt' },
      stepOutputs: { note: 'Successfully wrote to note.txt' },
      output: { test: expectedTest, saved: 'Successfully wrote to note.txt' },
    }],
  };
}

async function writeConfig(name: string, composites: string[]): Promise<string> {
  const file = path.join(configDir, name);
  await writeFile(file, [
    'servers:',
    '  fs:',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(FS_SERVER)}, ${JSON.stringify(project.root)}]`,
    '    trustAnnotations: true',
    'sideEffectingTools: [write_file]',
    `composites: [${composites.map((c) => JSON.stringify(c)).join(', ')}]`,
    '',
  ].join('\n'));
  return file;
}

describe('toolweave check', () => {
  it('passes a composite that builds and whose examples give their outputs, without running side effects', async () => {
    const test = await readFile(path.join(project.root, 'test/cache.test.json'), 'utf8');
    await writeFile(path.join(configDir, 'specs/review.json'), JSON.stringify(await reviewModule(test)));
    const run = await runBin(['check', '--config', await writeConfig('good.yaml', ['specs/review.json'])]);
    expect(run.stdout.trim().split('\n')).toEqual(['ok   server fs: 14 tools', 'ok   composite review_module: 1 examples']);
    expect(run.code).toBe(0);
    // A dry run: the side-effecting step took its stub output; nothing was written.
    expect(existsSync(path.join(project.root, 'note.txt'))).toBe(false);
  });

  it('fails, one line each, on a wrong output, an unknown tool, a server that does not start and a bad file', async () => {
    await writeFile(path.join(configDir, 'specs/wrong-output.json'), JSON.stringify({ ...(await reviewModule('not the test file')), name: 'review_wrong' }));
    await writeFile(path.join(configDir, 'specs/typo.yaml'), [
      'name: typo',
      'description: Reads with a typo.',
      'inputSchema: { type: object }',
      'spec: { steps: [ { tool: read_txt_file, args: { path: README.md } } ] }',
      '',
    ].join('\n'));
    await writeFile(path.join(configDir, 'specs/broken.yaml'), 'name: broken\nspec: {}\n');
    const file = await writeConfig('bad.yaml', ['specs/wrong-output.json', 'specs/typo.yaml', 'specs/broken.yaml']);
    await writeFile(file, `${await readFile(file, 'utf8')}`.replace('servers:\n', 'servers:\n  gone:\n    command: no-such-command-toolweave-check\n'));
    const run = await runBin(['check', '--config', file]);
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toEqual([
      `FAIL config_invalid ${path.join(configDir, 'specs/broken.yaml')}: (top level): missing field "description"`,
      `FAIL config_invalid ${path.join(configDir, 'specs/broken.yaml')}: (top level): missing field "inputSchema"`,
      'FAIL server gone: upstream_unavailable: could not be started: command "no-such-command-toolweave-check" not found',
      'ok   server fs: 14 tools',
      `FAIL composite review_wrong (${path.join(configDir, 'specs/wrong-output.json')}): example 1: the output differs from the one expected in 1 place:`,
      '       output.test: expected "not the test file", got "{\\n  \\"file\\": \\"src/app/report.js\\",\\n  \\"expect\\": [{ \\"contains\\": "... (90 characters)',
      expect.stringMatching(/^FAIL composite typo \(.*typo\.yaml\): spec_invalid: .*read_txt_file.*did you mean read_text_file/u),
    ]);
  });

  it('fails two composites that call each other with their cycle, before either is built', async () => {
    const composite = (name: string, other: string) => [
      `name: ${name}`,
      `description: Reads a file, then calls ${other}.`,
      'inputSchema: { type: object }',
      `spec: { steps: [ { name: read, tool: read_text_file, args: { path: README.md } }, { name: next, tool: ${other}, args: {} } ] }`,
      '',
    ].join('\n');
    await writeFile(path.join(configDir, 'specs/ping.yaml'), composite('ping', 'pong'));
    await writeFile(path.join(configDir, 'specs/pong.yaml'), composite('pong', 'ping'));
    const run = await runBin(['check', '--config', await writeConfig('cycle.yaml', ['specs/ping.yaml', 'specs/pong.yaml'])]);
    expect(run.code).toBe(1);
    expect(run.stdout.trim().split('\n')).toEqual([
      'ok   server fs: 14 tools',
      expect.stringMatching(/^FAIL composite ping \(.*ping\.yaml\): spec_invalid: composition cycle: ping → pong → ping \(step "next" calls "pong"\)/u),
      expect.stringMatching(/^FAIL composite pong \(.*pong\.yaml\): spec_invalid: composition cycle: pong → ping → pong \(step "next" calls "ping"\)/u),
    ]);
  });

  it('fails on every warning, one line each naming the composite and the step, where the run itself succeeds', async () => {
    const test = await readFile(path.join(project.root, 'test/cache.test.json'), 'utf8');
    await writeFile(path.join(configDir, 'specs/warned.json'), JSON.stringify({
      name: 'warned',
      description: 'Reads a file, with two wrong references.',
      inputSchema: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
      spec: {
        steps: [{ name: 'text', tool: 'read_text_file', args: { path: '$input.file' }, when: '$inptu.ready' }],
        output: { label: 'file ${$input.fiel}', text: '$steps.text' },
      },
      // What the run gives: the misspelt `when` is a non-empty text, so true; the undeclared field reads as nothing.
      examples: [{ input: { file: 'test/cache.test.json' }, output: { label: 'file ', text: test } }],
    }));
    const run = await runBin(['check', '--config', await writeConfig('warned.yaml', ['specs/warned.json'])]);
    const file = path.join(configDir, 'specs/warned.json');
    expect(run.stdout.trim().split('\n')).toEqual([
      'ok   server fs: 14 tools',
      `FAIL composite warned (${file}): warning: step "text": "$inptu.ready" has an unknown root "$inptu" (did you mean $input?); kept as the literal text (strict mode refuses it)`,
      `FAIL composite warned (${file}): warning: step "output": "$input.fiel" (in "file \${$input.fiel}") reads "fiel", which the inputSchema does not declare (did you mean file?); it reads undefined when the step runs (strict mode refuses it)`,
    ]);
    expect(run.code).toBe(1);
  });

  it('tells the person what to fix when a step gets arguments its tool refuses: the composite file or the example, not "call again"', async () => {
    await writeFile(path.join(configDir, 'specs/numbered.json'), JSON.stringify({
      name: 'numbered',
      description: 'Reads a file named by a number.',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      spec: { steps: [{ name: 'read', tool: 'read_text_file', inputMapping: { path: '$input.n' } }] },
      examples: [{ input: { n: 5 } }],
    }));
    const run = await runBin(['check', '--config', await writeConfig('numbered.yaml', ['specs/numbered.json'])]);
    const lines = run.stdout.trim().split('\n');
    expect(lines[1]).toMatch(/^FAIL composite numbered \(.*numbered\.json\): example 1: .*args_invalid.*path must be string \(got 5\)/u);
    expect(lines[1]).toContain("Fix the step's inputMapping in the composite file, or the example's input.");
    expect(run.stdout).not.toMatch(/call again/u);
    expect(run.code).toBe(1);
  });

  it('an example without output passes when the composite runs; match: partial and $regex leave out what changes', async () => {
    await writeFile(path.join(configDir, 'specs/facts.yaml'), factsFile([
      '  - { name: runs, input: { file: src/app/cache.js } }',
      '  - name: facts',
      '    input: { file: src/app/cache.js }',
      '    match: partial',
      '    output: { file: src/app/cache.js, info: { $regex: "^size: 616\\n" } }',
      '  - name: exact but for the times',
      '    input: { file: test/cache.test.json }',
      '    output: { file: test/cache.test.json, info: { $regex: "^size: 90\\n(.*\\n)*permissions: 644$" }, text: { $regex: cacheKey } }',
    ]));
    const run = await runBin(['check', '--config', await writeConfig('facts.yaml', ['specs/facts.yaml'])]);
    expect(run.stdout.trim().split('\n')).toEqual(['ok   server fs: 14 tools', 'ok   composite file_facts: 3 examples']);
    expect(run.code).toBe(0);
  });

  it('a mismatch lists each place that differs, expected beside actual, long values cut; every example is checked', async () => {
    await writeFile(path.join(configDir, 'specs/facts.yaml'), factsFile([
      '  - name: extra and missing fields',
      '    input: { file: src/app/cache.js }',
      '    output: { file: src/app/cache.js, size: 616 }',
      '  - name: partial',
      '    input: { file: src/app/cache.js }',
      '    match: partial',
      '    output: { file: src/app/orders.js, info: { $regex: "^size: 1\\n" }, text: [1] }',
      '  - name: bad pattern',
      '    input: { file: src/app/cache.js }',
      '    match: partial',
      '    output: { info: { $regex: "(" } }',
      '  - { name: passes, input: { file: src/app/cache.js } }',
    ]));
    const run = await runBin(['check', '--config', await writeConfig('facts.yaml', ['specs/facts.yaml'])]);
    const at = `FAIL composite file_facts (${path.join(configDir, 'specs/facts.yaml')})`;
    const lines = run.stdout.trim().split('\n');
    expect(lines).toEqual([
      'ok   server fs: 14 tools',
      `${at}: example extra and missing fields: the output differs from the one expected in 3 places:`,
      '       output.size: expected 616, got nothing (the output has no such field)',
      expect.stringMatching(/^ {7}output\.info: not expected, got "size: 616\\ncreated: .*"\.\.\. \(\d+ characters\)$/u),
      '       output.text: not expected, got "// A per-user, per-region cache in front of the slow lookups"... (616 characters)',
      `${at}: example partial: the output differs from the one expected in 3 places:`,
      '       output.file: expected "src/app/orders.js", got "src/app/cache.js"',
      expect.stringMatching(/^ {7}output\.info: expected a string matching \/\^size: 1\\n\/, got "size: 616\\ncreated: .*"\.\.\. \(\d+ characters\)$/u),
      '       output.text: expected [1], got "// A per-user, per-region cache in front of the slow lookups"... (616 characters)',
      `${at}: example bad pattern: the output differs from the one expected in 1 place:`,
      expect.stringMatching(/^ {7}output\.info: \$regex "\(" is not a valid regular expression: /u),
    ]);
    expect(run.code).toBe(1);
  });
});

/** A composite that reads a file and its metadata (with times that change at every read), with `examples`. */
function factsFile(examples: string[]): string {
  return [
    'name: file_facts',
    'description: A file, its text and its metadata.',
    'inputSchema: { type: object, properties: { file: { type: string } }, required: [file] }',
    'spec:',
    '  steps:',
    '    - { name: facts, combinator: gather, calls: { info: { tool: get_file_info, args: { path: $input.file } }, text: { tool: read_text_file, args: { path: $input.file } } } }',
    '  output: { file: $input.file, info: $steps.facts.info, text: $steps.facts.text }',
    'examples:',
    ...examples,
    '',
  ].join('\n');
}
