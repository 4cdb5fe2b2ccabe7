/**
 * `toolweave check` and the config's scripts: each built against the tools as they are now and
 * its examples run dry (side-effecting calls take their stub outputs), one line each, non-zero on
 * any problem: a wrong answer, a name another tool holds, a declared tool the config refuses.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, FS_SERVER, processesLeft, type Project } from '../mcp/helpers.js';
import { runBin } from './proxy-process.js';

let project: Project;
beforeAll(async () => {
  project = await copyProject('toolweave-check-scripts-');
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

const pathSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
const countLines = 'const r = await callTool("read_text_file", { path: input.path }); if (r.error) throw new Error(r.error.message); return { path: input.path, lines: r.text.split("\\n").length };';
const makeFolder = 'const r = await callTool("create_directory", { path: input.path }); if (r.error) throw new Error(r.error.message); return { made: r.text };';

async function writeConfig(name: string, scripts: Record<string, unknown>, composites: string[] = []): Promise<string> {
  const file = path.join(project.root, name);
  await writeFile(file, JSON.stringify({
    servers: { fs: { command: process.execPath, args: [FS_SERVER, project.root], trustAnnotations: true } },
    sideEffectingTools: ['create_directory'],
    scripts,
    composites,
  }));
  return file;
}

describe('toolweave check, config scripts', () => {
  it('passes scripts whose examples give their answers, a side-effecting call taking its stub output', async () => {
    const readme = path.join(project.root, 'README.md');
    const lines = (await readFile(readme, 'utf8')).split('\n').length;
    const folder = path.join(project.root, 'checked-folder');
    const file = await writeConfig('good.json', {
      count_lines: { description: 'Count lines.', inputSchema: pathSchema, script: countLines, examples: [{ input: { path: readme }, output: { path: readme, lines } }, { name: 'runs', input: { path: readme } }] },
      make_folder: {
        description: 'Make a folder.',
        inputSchema: pathSchema,
        sideEffectingTools: ['create_directory'],
        script: makeFolder,
        examples: [{ input: { path: folder }, stepOutputs: { create_directory: 'Successfully created directory' }, output: { made: 'Successfully created directory' } }],
      },
    });
    const run = await runBin(['check', '--config', file]);
    expect(run.stdout.trim().split('\n')).toEqual(['ok   server fs: 14 tools', 'ok   script count_lines: 2 examples', 'ok   script make_folder: 1 examples']);
    expect(run.code).toBe(0);
    // A dry run: the folder was not made.
    expect(existsSync(folder)).toBe(false);
  }, 60_000);

  it('fails, one line each, on a wrong answer, bad example input, a name an upstream tool holds and a declared tool the config refuses', async () => {
    const readme = path.join(project.root, 'README.md');
    const file = await writeConfig('bad.json', {
      count_lines: { description: 'Count lines.', inputSchema: pathSchema, script: countLines, examples: [{ name: 'wrong', input: { path: readme }, output: { path: readme, lines: 1 } }, { name: 'no path', input: {} }] },
      read_text_file: { description: 'Shadows the server.', inputSchema: pathSchema, script: 'return 1' },
      save_note: { description: 'Save a note.', inputSchema: pathSchema, sideEffectingTools: ['write_file'], script: 'return 1' },
      read_readme: { description: 'Also a composite file.', inputSchema: pathSchema, script: 'return 1' },
    }, ['read-readme.json']);
    const composite = path.join(project.root, 'read-readme.json');
    await writeFile(composite, JSON.stringify({ name: 'read_readme', description: 'Read the README.', inputSchema: { type: 'object' }, spec: { steps: [{ tool: 'read_text_file', args: { path: readme } }] } }));
    const run = await runBin(['check', '--config', file]);
    expect(run.code).toBe(1);
    expect(run.stdout.trim().split('\n')).toEqual([
      'ok   server fs: 14 tools',
      `FAIL script count_lines (${file}): example wrong: the output differs from the one expected in 1 place:`,
      expect.stringMatching(/^\s+output\.lines: expected 1, got \d+$/u),
      expect.stringMatching(new RegExp(`^FAIL script count_lines \\(.*\\): example no path: input_invalid: .*path`, 'u')),
      `FAIL script read_text_file (${file}): tool_name_collision: the name "read_text_file" is taken by another tool; rename the script`,
      `FAIL script save_note (${file}): step_not_chainable: it declares "write_file", which the top-level sideEffectingTools does not list, so the script may not call it; list it there or remove it from the script's sideEffectingTools`,
      `FAIL script read_readme (${file}): tool_name_collision: scripts.read_readme: the name is also the composite's of ${composite}; neither is served until one is renamed`,
    ]);
  }, 60_000);
});
