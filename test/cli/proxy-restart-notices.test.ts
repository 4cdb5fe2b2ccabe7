/**
 * An upstream server that exits and is restarted again and again: the proxy tells its client that
 * the tools changed only when they did (not at every restart), and writes nothing to a client that
 * has not initialized yet. The bin runs over stdio, as a desktop client runs it; the client is the
 * SDK's own.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, processesLeft, REPO, sleep, until } from '../mcp/helpers.js';
import { BIN_COMMAND } from './proxy-process.js';

const SERVER = path.join(REPO, 'test/cli/fixtures/short-lived-server.mjs');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-restarts-'));
});
afterAll(async () => {
  expect(await processesLeft(dir)).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

const starts = async (folder: string) => Number(await readFile(path.join(folder, 'starts'), 'utf8').catch(() => '0'));

describe('tools/list_changed from a proxy whose upstream restarts', () => {
  it('is sent once, when the tools change, not at each restart', async () => {
    const folder = await mkdtemp(path.join(dir, 'changes-'));
    const [node, ...bin] = BIN_COMMAND;
    const proxy = await connectStdio(node, [...bin, 'mcp', '--', process.execPath, SERVER, folder, '--change-at', '4']);
    let told = 0;
    proxy.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      told++;
    });
    try {
      await until(() => proxy.stderr().includes('is up'), 20_000);
      expect((await proxy.client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
      // Three restarts with the same tools: nothing to tell.
      for (let turn = 0; turn < 200 && (await starts(folder)) < 3; turn++) await sleep(50);
      await sleep(1_000);
      expect(told).toBe(0);
      // The fourth start serves one more tool: the client is told, once.
      for (let turn = 0; turn < 200 && (await starts(folder)) < 5; turn++) await sleep(50);
      expect(await starts(folder)).toBeGreaterThanOrEqual(5);
      expect(told).toBe(1);
      expect((await proxy.client.listTools()).tools.map((tool) => tool.name)).toContain('shout');
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('writes nothing before the client sends initialize, though the upstream started and restarted meanwhile', async () => {
    const folder = await mkdtemp(path.join(dir, 'early-'));
    const [node, ...bin] = BIN_COMMAND;
    const child = spawn(node, [...bin, 'mcp', '--', process.execPath, SERVER, folder], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      for (let turn = 0; turn < 400 && (await starts(folder)) < 2; turn++) await sleep(50);
      expect(await starts(folder)).toBeGreaterThanOrEqual(2);
      await until(() => (stderr.match(/is up/gu) ?? []).length >= 2, 10_000);
      expect(stdout).toBe('');
    } finally {
      child.stdin.end();
      await new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(undefined);
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
    }
  }, 60_000);
});
