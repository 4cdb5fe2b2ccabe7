/**
 * Record → forge → check, as a user runs them: three client sessions through `toolweave mcp
 * --record` over the real filesystem server, `toolweave forge` on what they recorded, then
 * `toolweave check` on the forged composite against the live server.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, FS_SERVER, processesLeft, type Project } from '../mcp/helpers.js';
import { httpClient, proxyOverHttp, proxyOverStdio, runBin } from './proxy-process.js';

let project: Project;
let recordings: string;
let forged: string;

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = CallToolResultSchema.parse(await client.callTool({ name, arguments: args }));
  expect(result.isError, `${name} ${JSON.stringify(args)}`).not.toBe(true);
  return (result.content[0] as { text: string }).text;
}

beforeAll(async () => {
  project = await copyProject('toolweave-forge-');
  recordings = path.join(project.root, '.recordings');
  forged = path.join(project.root, '.forged');
  const root = project.root;
  const proxy = await proxyOverHttp(['--record', recordings, '--trust-annotations', '--', process.execPath, FS_SERVER, root]);
  try {
    const modules = ['cache', 'orders', 'profile'];
    for (const [i, module] of modules.entries()) {
      const client = await httpClient(proxy.url);
      // Noise: calls that feed nothing later.
      await call(client, 'list_allowed_directories', {});
      // The chain every session makes: back a module up (read it, write its text elsewhere).
      const text = await call(client, 'read_text_file', { path: path.join(root, `src/app/${module}.js`) });
      await call(client, 'get_file_info', { path: path.join(root, 'package.json') });
      await call(client, 'write_file', { path: path.join(root, `${module}.bak`), content: text });
      // A chain only two sessions make: find the tests, read the first one found.
      if (i < 2) {
        const found = await call(client, 'search_files', { path: path.join(root, 'test'), pattern: '*.json' });
        await call(client, 'read_text_file', { path: found.split('\n')[0] });
      }
      await client.close();
    }
  } finally {
    await proxy.stop();
  }
}, 120_000);
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

async function config(name: string, sideEffectingTools: string[]): Promise<string> {
  const file = path.join(project.root, name);
  await writeFile(file, JSON.stringify({
    servers: { fs: { command: process.execPath, args: [FS_SERVER, project.root], trustAnnotations: true } },
    sideEffectingTools,
    composites: ['.forged/*.json'],
  }));
  return file;
}

describe('record, forge, check', () => {
  it('forges the chain three sessions made, not the one two made, and check passes it against the live server', async () => {
    expect((await readdir(recordings)).filter((name) => name.endsWith('.jsonl'))).toHaveLength(3);
    const run = await runBin(['forge', recordings, '--out', forged]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^read 3 sessions, 16 calls, from /u),
      `forged read_text_file_then_write_file: 2 steps, seen in 3 sessions, 3 examples; side-effecting: write_file -> ${path.join(forged, 'read_text_file_then_write_file.json')}`,
      "1 composite files written; none is served until you add it to a config's composites and toolweave check passes",
    ]);
    const file = JSON.parse(await readFile(path.join(forged, 'read_text_file_then_write_file.json'), 'utf8'));
    expect(file.spec).toEqual({
      steps: [
        { name: 'read_text_file', tool: 'read_text_file', inputMapping: { path: '$input.path' } },
        { name: 'write_file', tool: 'write_file', inputMapping: { content: '$steps.read_text_file', path: '$input.path_2' } },
      ],
    });
    expect(file.sideEffectingSteps).toEqual(['write_file']);
    expect(file.examples[0].input).toEqual({ path: path.join(project.root, 'src/app/cache.js'), path_2: path.join(project.root, 'cache.bak') });

    // The backups the sessions wrote are gone: a dry run must not write them again.
    for (const module of ['cache', 'orders', 'profile']) await rm(path.join(project.root, `${module}.bak`));
    const check = await runBin(['check', '--config', await config('forged.json', ['write_file'])]);
    expect(check.stdout.trim().split('\n')).toEqual(['ok   server fs: 14 tools', 'ok   composite read_text_file_then_write_file: 3 examples']);
    expect(check.code).toBe(0);
    expect(existsSync(path.join(project.root, 'cache.bak'))).toBe(false);
  }, 120_000);

  it('once added to a config, the proxy serves it, and the config\'s record keeps its calls, each under its step', async () => {
    const file = path.join(project.root, 'serve.json');
    await writeFile(file, JSON.stringify({
      servers: { fs: { command: process.execPath, args: [FS_SERVER, project.root], trustAnnotations: true } },
      sideEffectingTools: ['write_file'],
      composites: ['.forged/*.json'],
      record: '.served-recordings',
    }));
    const proxy = await proxyOverStdio(['--config', file]);
    try {
      const listed = await proxy.client.listTools();
      expect(listed.tools.map((tool) => tool.name)).toContain('read_text_file_then_write_file');
      const input = { path: path.join(project.root, 'src/app/orders.js'), path_2: path.join(project.root, 'orders.copy') };
      const result = CallToolResultSchema.parse(await proxy.client.callTool({ name: 'read_text_file_then_write_file', arguments: input }));
      expect(result.isError).not.toBe(true);
      expect(await readFile(input.path_2, 'utf8')).toBe(await readFile(input.path, 'utf8'));
    } finally {
      await proxy.close();
    }
    // Relative to the config's folder; the composite's calls are recorded with their door and step.
    const [recorded] = (await readdir(path.join(project.root, '.served-recordings'))).filter((name) => name.endsWith('.jsonl'));
    const lines = (await readFile(path.join(project.root, '.served-recordings', recorded), 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.tool, line.door, line.step, line.ok])).toEqual([
      ['read_text_file', 'composite', 'read_text_file', true],
      ['write_file', 'composite', 'write_file', true],
    ]);
  }, 60_000);

  it('check refuses the forged composite while the config does not let its side-effecting tool be chained', async () => {
    const check = await runBin(['check', '--config', await config('unchained.json', [])]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/FAIL composite read_text_file_then_write_file .*spec_invalid: step "write_file" calls "write_file", which has side effects and is not listed as one that may be chained/u);
  }, 60_000);

  it('check fails a file whose sideEffectingSteps leaves out a step that changes things', async () => {
    const source = JSON.parse(await readFile(path.join(forged, 'read_text_file_then_write_file.json'), 'utf8'));
    await mkdir(path.join(project.root, '.edited'), { recursive: true });
    await writeFile(path.join(project.root, '.edited/unlisted.json'), JSON.stringify({ ...source, name: 'unlisted', sideEffectingSteps: [] }));
    const file = path.join(project.root, 'edited.json');
    await writeFile(file, JSON.stringify({ servers: { fs: { command: process.execPath, args: [FS_SERVER, project.root], trustAnnotations: true } }, sideEffectingTools: ['write_file'], composites: ['.edited/*.json'] }));
    const check = await runBin(['check', '--config', file]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('step "write_file" calls write_file, which has side effects, and sideEffectingSteps does not list it');
  }, 60_000);

  it('says what is wrong with a forge command line or a folder that cannot be read', async () => {
    const noOut = await runBin(['forge', recordings]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain('toolweave forge needs --out <dir>');
    const badMin = await runBin(['forge', recordings, '--out', forged, '--min-sessions', '0']);
    expect(badMin.code).toBe(2);
    expect(badMin.stderr).toContain('--min-sessions takes a whole number of sessions');
    const missing = await runBin(['forge', path.join(project.root, 'no-such-folder'), '--out', forged]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^toolweave forge: recordings_unreadable: The recordings folder .* cannot be read \(ENOENT\)\.\n$/u);
  }, 60_000);
});
