/**
 * No process the bin starts outlives it. Each server runs in a process group of its own, and the
 * whole group is stopped on every way the bin ends: SIGTERM or SIGINT to it, its stdin closing
 * (the client went away), a server that never answers initialize, `check` finishing or being
 * stopped, an error that ends the process. The servers here start a process of their own and
 * hang, the way a shell script or an `npx` wrapper around a stuck server does. The built bin is
 * run (`npm run build` first), as `npx toolweave` runs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, sleep } from '../mcp/helpers.js';

const BIN = path.join(REPO, 'dist/cli/toolweave.js');
/** Processes are read from /proc, and groups are what POSIX systems have. */
const LINUX = process.platform === 'linux';
const SPAWNING = path.join(REPO, 'test/cli/fixtures/spawning-server.mjs');

/** A process found by its command line: its id, its group, and what it runs. */
interface Found {
  pid: number;
  pgid: number;
  args: string;
}

/**
 * The running processes (zombies left out: they have exited) whose command line holds `marker`,
 * read from /proc.
 */
function running(marker: string): Found[] {
  const found: Found[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (!args.includes(marker)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      found.push({ pid: Number(entry), pgid: Number(fields[2]), args });
    } catch {
      // Gone while it was read.
    }
  }
  return found;
}

/** The processes of `marker` still running after up to `ms` for them to go. */
async function leftAfter(marker: string, ms = 3_000): Promise<Found[]> {
  const end = Date.now() + ms;
  let left = running(marker);
  while (left.length > 0 && Date.now() < end) {
    await sleep(100);
    left = running(marker);
  }
  return left;
}

let dir: string;
/** Each test's marker: a folder of its own under `dir`, in every command line it starts. */
let count = 0;
const markers: string[] = [];
function newMarker(): string {
  const marker = path.join(dir, `case-${++count}.marker`);
  markers.push(marker);
  return marker;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-groups-'));
});
afterAll(async () => {
  // Whatever a failed test left: stopped by its own id, so nothing else is touched.
  for (const marker of LINUX ? markers : []) {
    for (const p of running(marker)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
  }
  await rm(dir, { recursive: true, force: true });
});

/** A config with one server, the spawning fixture with `flags`, marked with `marker` (the config's own path is not). */
async function configFor(marker: string, server: Record<string, unknown>, flags: string[] = []): Promise<string> {
  const file = path.join(dir, `config-${count}.json`);
  await writeFile(file, JSON.stringify({ servers: { spawner: { command: process.execPath, args: [SPAWNING, ...flags, marker], ...server } } }));
  return file;
}

/** The bin running, its stderr collected. */
interface Bin {
  child: ChildProcess;
  stderr(): string;
  /** Resolves with the exit code; rejects after `ms`. */
  exited(ms?: number): Promise<number | null>;
  /** Resolves once stderr matches `pattern`; rejects after `ms`. */
  saw(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
}

function startBin(args: string[]): Bin {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.resume();
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stderr: () => stderr,
    exited: (ms = 20_000) =>
      Promise.race([exit, sleep(ms).then(() => Promise.reject(new Error(`the bin did not exit within ${ms} ms:\n${stderr}`)))]),
    async saw(pattern, ms = 20_000) {
      const end = Date.now() + ms;
      while (Date.now() < end) {
        const found = pattern.exec(stderr);
        if (found) return found;
        if (child.exitCode !== null) break;
        await sleep(50);
      }
      throw new Error(`the bin's stderr did not show ${pattern} within ${ms} ms:\n${stderr}`);
    },
  };
}

/** The server's and its child's process ids, once the server says it has started its child. */
async function spawned(bin: Bin, marker: string, after = 0): Promise<number[]> {
  const pattern = /\[spawner\] spawned (\d+) (\d+)/gu;
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    const all = [...bin.stderr().matchAll(pattern)];
    if (all.length > after) {
      const pids = [Number(all[after][1]), Number(all[after][2])];
      // Each in a group of its own: the server leads it, and its child is in it.
      const found = running(marker).filter((p) => pids.includes(p.pid));
      expect(found.map((p) => p.pgid)).toEqual([pids[0], pids[0]]);
      return pids;
    }
    await sleep(50);
  }
  throw new Error(`no server started its child:\n${bin.stderr()}`);
}

describe.runIf(LINUX)('toolweave mcp stops every process it started', () => {
  it('on SIGTERM while a server has not answered initialize, even a server and child that ignore SIGTERM', async () => {
    const marker = newMarker();
    const bin = startBin(['mcp', '--config', await configFor(marker, { initTimeoutMs: 60_000 }, ['--ignore-term'])]);
    await spawned(bin, marker);
    expect(running(marker)).toHaveLength(2);
    bin.child.kill('SIGTERM');
    expect(await bin.exited()).toBe(0);
    expect(await leftAfter(marker)).toEqual([]);
  }, 40_000);

  it('on SIGINT while a server has not answered initialize', async () => {
    const marker = newMarker();
    const bin = startBin(['mcp', '--config', await configFor(marker, { initTimeoutMs: 60_000 })]);
    await spawned(bin, marker);
    bin.child.kill('SIGINT');
    expect(await bin.exited()).toBe(0);
    expect(await leftAfter(marker)).toEqual([]);
  }, 40_000);

  it('when its stdin closes (the client went away) while a server has not answered initialize', async () => {
    const marker = newMarker();
    const bin = startBin(['mcp', '--config', await configFor(marker, { initTimeoutMs: 60_000 })]);
    await spawned(bin, marker);
    bin.child.stdin!.end();
    expect(await bin.exited()).toBe(0);
    expect(await leftAfter(marker)).toEqual([]);
  }, 40_000);

  it('at an initialize timeout, then when the client goes away while the server is restarted', async () => {
    const marker = newMarker();
    const bin = startBin(['mcp', '--config', await configFor(marker, { initTimeoutMs: 500 })]);
    const first = await spawned(bin, marker);
    await bin.saw(/server "spawner": did not answer initialize within 500 ms/u);
    // The first start's server and child are gone while the proxy goes on.
    const end = Date.now() + 10_000;
    while (running(marker).some((p) => first.includes(p.pid)) && Date.now() < end) await sleep(100);
    expect(running(marker).filter((p) => first.includes(p.pid))).toEqual([]);
    expect(bin.child.exitCode).toBeNull();
    // A restart is under way: a new server, started and not answering.
    await spawned(bin, marker, 1);
    bin.child.stdin!.end();
    expect(await bin.exited()).toBe(0);
    expect(await leftAfter(marker)).toEqual([]);
  }, 40_000);

  it('when the client closes the session of a server that is up and whose child outlives its stdin', async () => {
    const marker = newMarker();
    const [node, ...args] = [process.execPath, BIN, 'mcp', '--config', await configFor(marker, {}, ['--answer'])];
    const transport = new StdioClientTransport({ command: node, args, cwd: REPO, stderr: 'pipe' });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'toolweave-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
      expect(running(marker)).toHaveLength(2);
    } finally {
      await client.close();
    }
    expect(await leftAfter(marker, 10_000), stderr).toEqual([]);
  }, 40_000);
});

describe.runIf(LINUX)('toolweave check stops every process it started', () => {
  it('when a server never answers initialize: it fails, and nothing is left', async () => {
    const marker = newMarker();
    const bin = startBin(['check', '--config', await configFor(marker, { initTimeoutMs: 500 })]);
    await spawned(bin, marker);
    expect(await bin.exited()).toBe(1);
    expect(bin.stderr()).toContain('server "spawner": did not answer initialize within 500 ms');
    expect(await leftAfter(marker)).toEqual([]);
  }, 40_000);

  it('when it passes with a server whose child outlives its stdin', async () => {
    const marker = newMarker();
    const bin = startBin(['check', '--config', await configFor(marker, {}, ['--answer'])]);
    await spawned(bin, marker);
    expect(await bin.exited()).toBe(0);
    expect(await leftAfter(marker)).toEqual([]);
  }, 40_000);

  it('when it is stopped with SIGTERM before a server has answered', async () => {
    const marker = newMarker();
    const bin = startBin(['check', '--config', await configFor(marker, { initTimeoutMs: 60_000 })]);
    await spawned(bin, marker);
    bin.child.kill('SIGTERM');
    expect(await bin.exited()).toBe(1);
    expect(await leftAfter(marker)).toEqual([]);
  }, 40_000);
});

describe.runIf(LINUX)('a process that ends with an uncaught error', () => {
  it('takes the servers it started with it', async () => {
    const marker = newMarker();
    // The stdio transport the bin uses, in a process that then fails with an uncaught error.
    const script = path.join(dir, `crash-${count}.mjs`);
    await writeFile(
      script,
      `import { UpstreamStdioTransport } from ${JSON.stringify(path.join(REPO, 'dist/mcp/upstream-stdio.js'))};
      const transport = new UpstreamStdioTransport({ command: process.execPath, args: [${JSON.stringify(SPAWNING)}, ${JSON.stringify(marker)}], maxMessageBytes: 1024 });
      transport.stderr.pipe(process.stderr);
      await transport.start();
      setInterval(() => undefined, 1000);
      transport.stderr.on('data', (chunk) => { if (String(chunk).includes('spawned')) setTimeout(() => { throw new Error('crash'); }, 100); });`,
    );
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await Promise.race([new Promise((resolve) => child.once('exit', resolve)), sleep(20_000).then(() => 'timeout')]);
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(/spawned \d+ \d+/u);
    expect(stderr).toContain('Error: crash');
    expect(await leftAfter(marker)).toEqual([]);
  }, 40_000);
});
