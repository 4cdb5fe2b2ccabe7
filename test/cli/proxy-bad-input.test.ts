/**
 * Bad input to the proxy, each a clear error with a code naming the server or the tool, while the
 * proxy keeps serving whatever else works: a wrong config field, a command that does not exist, a
 * server that never answers initialize, a tool name collision, an unknown tool, and a server that
 * crashes (its calls fail with upstream_unavailable until the proxy has restarted it).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveProcesses, processesLeft, PLAIN_SERVER, REPO, sleep, type ChildClient } from '../mcp/helpers.js';
import { proxyOverStdio, runBin } from './proxy-process.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-bad-'));
});
afterAll(async () => {
  expect(await processesLeft(dir)).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

/** A plain server started by the proxy; the folder is passed along so the process can be found. */
const plain = (...args: string[]) => ({ command: process.execPath, args: ['--import', 'tsx', PLAIN_SERVER, ...args, dir], cwd: REPO });
const result = (answer: unknown) => {
  const parsed = CallToolResultSchema.parse(answer);
  return { isError: parsed.isError === true, text: (parsed.content[0] as { text: string }).text };
};

async function config(name: string, body: unknown): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, JSON.stringify(body, null, 2));
  return file;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(100);
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('a config with a wrong field', () => {
  it('is refused before anything starts: exit 1, the code, the file and the field', async () => {
    const file = await config('wrong.json', { servers: { fs: { comand: 'npx' } }, sideEffectingTools: 'write_file' });
    const run = await runBin(['mcp', '--config', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`toolweave: error config_invalid: ${file}: servers.fs: unknown field "comand"`);
    expect(run.stderr).toContain(`toolweave: error config_invalid: ${file}: sideEffectingTools: must be array`);
    expect(run.stdout).toBe('');
  });
});

describe('a config and a server on the command line', () => {
  it('are refused together before anything starts: exit 2, saying to put the server in the config', async () => {
    const file = await config('one-server.json', { servers: { plain: plain('--tools', 'echo') } });
    const run = await runBin(['mcp', '--config', file, '--', process.execPath, '--import', 'tsx', PLAIN_SERVER, '--tools', 'echo', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^toolweave: toolweave mcp takes its servers from --config <file> or from the command line, not both: add it to the config's servers \(servers: \{ <name>: \{ command, args \} \}\) and leave out the command\./u);
    expect(run.stdout).toBe('');
  });
});

describe('servers that fail, collide or crash', () => {
  let proxy: ChildClient;
  beforeAll(async () => {
    const file = await config('mixed.json', {
      servers: {
        good: { ...plain('--tools', 'echo,crash,sleep'), tools: { echo: { hasSideEffects: false } } },
        twin: plain('--name', 'twin', '--tools', 'echo,stats'),
        ghost: { command: 'no-such-command-toolweave-test' },
        silent: { ...plain('--silent'), initTimeoutMs: 800 },
      },
    });
    proxy = await proxyOverStdio(['--config', file]);
  }, 60_000);
  afterAll(async () => {
    expect(liveProcesses(dir).length).toBeGreaterThanOrEqual(1);
    await proxy.close();
    expect(await processesLeft(dir)).toEqual([]);
  });

  it('reports each with its code, naming the server or the tool', () => {
    const stderr = proxy.stderr();
    expect(stderr).toContain('toolweave: error upstream_unavailable: server "ghost": could not be started: command "no-such-command-toolweave-test" not found');
    expect(stderr).toContain('toolweave: error upstream_unavailable: server "silent": did not answer initialize within 800 ms');
    expect(stderr).toContain('toolweave: error tool_name_collision: tool "echo" of server "twin" is not served: server "good" already serves a tool by that name; set prefix: true on one of them');
  });

  it('keeps serving whatever works: the first holder of a name keeps it', async () => {
    const names = (await proxy.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(['run_pipeline', 'compose', 'run_js', 'get_observation', 'echo', 'sleep', 'crash', 'stats']);
    expect(result(await proxy.client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toEqual({ isError: false, text: 'still here' });
    const unknown = result(await proxy.client.callTool({ name: 'ecko', arguments: {} }));
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/^error step_missing: No tool named "ecko".*did you mean echo\?/u);
  });

  it('a crashed server: its calls fail with upstream_unavailable, it is restarted, and the proxy stays up', async () => {
    const crashed = result(await proxy.client.callTool({ name: 'crash', arguments: {} }));
    expect(crashed.isError).toBe(true);
    // Each names the server and why; the call in flight got no answer, the next one was not made.
    expect(crashed.text).toMatch(/^error upstream_unavailable: MCP server "good" is not connected: it closed the connection or exited; .*The call to "crash" got no answer\.$/u);
    const down = result(await proxy.client.callTool({ name: 'echo', arguments: { text: 'x' } }));
    expect(down.text).toMatch(/^error upstream_unavailable: MCP server "good" is not connected: it closed the connection or exited; .*The call to "echo" was not made\.$/u);
    // The other server answers meanwhile.
    expect(result(await proxy.client.callTool({ name: 'stats', arguments: {} })).text).toBe('{"files":3,"lines":40}');
    const back = await until('the restarted server', async () => {
      const answer = result(await proxy.client.callTool({ name: 'echo', arguments: { text: 'back' } }));
      return answer.isError ? undefined : answer.text;
    });
    expect(back).toBe('back');
    expect(proxy.stderr()).toMatch(/error upstream_unavailable: server "good": it closed the connection or exited; its calls fail until it is back; restarting in \d+ ms/u);
    expect(proxy.stderr()).toMatch(/toolweave: server "good" is up: 3 tools[\s\S]*toolweave: server "good" is up: 3 tools/u);
  }, 40_000);
});

describe('prefix: true', () => {
  it('names each server’s tools <server>__<tool>, so the same name on two servers does not collide; --verbose logs each call', async () => {
    const file = await config('prefixed.json', { servers: { a: { ...plain('--tools', 'echo'), prefix: true }, b: { ...plain('--tools', 'echo'), prefix: true } } });
    const proxy = await proxyOverStdio(['--config', file, '--verbose']);
    try {
      const names = (await proxy.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['a__echo', 'b__echo']));
      expect(proxy.stderr()).not.toContain('tool_name_collision');
      expect(result(await proxy.client.callTool({ name: 'b__echo', arguments: { text: 'from b' } })).text).toBe('from b');
      // --verbose: each call and its verdict, on stderr.
      const line = /toolweave: call b__echo: ok \(\d+ ms\)/u;
      await until('the --verbose line', async () => (line.test(proxy.stderr()) ? true : undefined), 10_000);
      expect(proxy.stderr()).toMatch(line);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
