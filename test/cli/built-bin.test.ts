/**
 * The bin as package.json names it (`bin.toolweave`, built into dist by `npm run build`, which
 * `npm install` runs through `prepare` and CI through `typecheck`): the file `npx toolweave` runs
 * from an install. It starts, says its usage, and serves as the proxy.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, copyProject, FS_SERVER, liveProcesses, processesLeft, REPO, type Project } from '../mcp/helpers.js';

const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { bin: Record<string, string> };
const BIN = path.join(REPO, pkg.bin.toolweave);

let project: Project;
beforeAll(async () => {
  project = await copyProject('toolweave-bin-');
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

describe('the built toolweave bin', () => {
  it('is built, starts with a shebang, and prints its usage', async () => {
    expect(existsSync(BIN), `${BIN} is missing: run npm run build`).toBe(true);
    expect(readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, '--help']);
    expect(stdout).toContain('toolweave mcp [options] [--] <command> [args...]');
  });

  it('serves the proxy: the upstream tools and run_js over them', async () => {
    const proxy = await connectStdio(process.execPath, [BIN, 'mcp', '--trust-annotations', '--', process.execPath, FS_SERVER, project.root]);
    try {
      expect((await proxy.client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['run_js', 'read_text_file']));
      const answer = await proxy.client.callTool({ name: 'run_js', arguments: { intention: 'first line', code: `return (await callTool('read_text_file', { path: 'README.md' })).text.split('\\n')[0];` } });
      expect(answer.content).toEqual([{ type: 'text', text: '# shop-api' }]);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
