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
      expect.stringMatching(/^FAIL composite review_wrong \(.*wrong-output\.json\): example 1: the output was \{"test":"\{.*expected \{"test":"not the test file"/u),
      expect.stringMatching(/^FAIL composite typo \(.*typo\.yaml\): spec_invalid: .*read_txt_file.*did you mean read_text_file/u),
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
});
