/**
 * The proxy as a user runs it: `toolweave mcp ...` in a child process (the bin's source, run with
 * tsx), reached by the SDK's Client over stdio or Streamable HTTP. Each test stops what it starts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { connectStdio, processesLeft, REPO, UNRULY_SERVER, type ChildClient } from '../mcp/helpers.js';

/** The bin's source. */
export const TOOLWEAVE_BIN = path.join(REPO, 'src/cli/toolweave.ts');
/** `node --import tsx <bin>`: the bin as `npx toolweave` would run it, from source. */
export const BIN_COMMAND = [process.execPath, '--import', 'tsx', TOOLWEAVE_BIN] as const;

/** The proxy over stdio, its client connected. */
export function proxyOverStdio(args: string[], options: { cwd?: string; capabilities?: ClientCapabilities; env?: Record<string, string> } = {}): Promise<ChildClient> {
  const [node, ...bin] = BIN_COMMAND;
  return connectStdio(node, [...bin, 'mcp', ...args], { cwd: options.cwd ?? REPO, capabilities: options.capabilities, ...(options.env ? { env: options.env } : {}) });
}

/** A proxy child process serving HTTP, and its URL (read from its stderr). */
export interface HttpProxy {
  child: ChildProcess;
  url: string;
  stderr(): string;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<number | null>;
}

/** Start the proxy on a free port of `listen` (`--http`'s value; default 127.0.0.1:0). */
export async function proxyOverHttp(args: string[], env: Record<string, string> = {}, listen = '127.0.0.1:0'): Promise<HttpProxy> {
  const [node, ...bin] = BIN_COMMAND;
  const child = spawn(node, [...bin, 'mcp', '--http', listen, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the proxy did not start serving HTTP:\n${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /serving MCP over Streamable HTTP at (\S+)/u.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`the proxy exited (${code}):\n${stderr}`)));
  });
  return {
    child,
    url,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

/** A client over Streamable HTTP. */
export async function httpClient(url: string, capabilities: ClientCapabilities = {}): Promise<Client> {
  const client = new Client({ name: 'toolweave-test', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Run the bin to its end: its exit code and output. */
export function runBin(args: string[], cwd = REPO, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [node, ...bin] = BIN_COMMAND;
  return new Promise((resolve) => {
    const child = spawn(node, [...bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A proxy over HTTP in front of the unruly test server, with SDK clients, and the folder it runs in. */
export interface UnrulyProxy {
  proxy: HttpProxy;
  clients: Client[];
  /** Close the clients, stop the proxy, check that no process it started is left, and remove the folder. */
  stop(): Promise<void>;
}

/**
 * The proxy over HTTP in front of the unruly test server (its `sleep` declared pure), with
 * `config` beside the server in its config file, `args` on its command line, and `clients` clients.
 */
export async function unrulyProxyOverHttp(prefix: string, config: Record<string, unknown>, args: string[], clients: number): Promise<UnrulyProxy> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  const file = path.join(dir, 'proxy.json');
  const server = { command: process.execPath, args: ['--import', 'tsx', UNRULY_SERVER, dir], cwd: REPO, tools: { sleep: { hasSideEffects: false } } };
  await writeFile(file, JSON.stringify({ servers: { unruly: server }, ...config }));
  const proxy = await proxyOverHttp(['--config', file, ...args]);
  const connected: Client[] = [];
  for (let i = 0; i < clients; i++) connected.push(await httpClient(proxy.url));
  return {
    proxy,
    clients: connected,
    stop: async () => {
      for (const client of connected) await client.close();
      await proxy.stop();
      expect(await processesLeft(dir)).toEqual([]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A tool's answer as a model reads it: its first text, and whether it is an error. */
export interface TextAnswer {
  text: string;
  isError: boolean;
}

/** Call `name` through `client` and read the answer's first text. */
export async function callText(client: Client, name: string, args: Record<string, unknown>): Promise<TextAnswer> {
  const answer = CallToolResultSchema.parse(await client.callTool({ name, arguments: args }));
  return { text: (answer.content[0] as { text: string }).text, isError: answer.isError === true };
}

/** The id of the queued run a pause names (`(run q…)`), or '' when it names none. */
export const queuedRunId = (text: string): string => /\(run (q[A-Za-z0-9]+)\)/u.exec(text)?.[1] ?? '';
