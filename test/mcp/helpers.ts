/**
 * The real parts the MCP tests use: the reference filesystem server, started with `node` on its
 * installed entry over stdio on a temporary copy of the fixture project, and SDK clients. Every
 * process a test starts, it stops; `liveProcesses` finds the ones still running by the test's own
 * folder in their command line.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** The filesystem server's installed entry. */
export const FS_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
/** The test-defined server without annotations. */
export const PLAIN_SERVER = path.join(REPO, 'test/mcp/fixtures/plain-server.ts');
/** The test-defined server that misbehaves on request. */
export const UNRULY_SERVER = path.join(REPO, 'test/mcp/fixtures/unruly-server.ts');
const FIXTURE = path.join(REPO, 'examples/fixtures/project');

/** A temporary copy of the fixture project. */
export interface Project {
  root: string;
  remove(): Promise<void>;
}

/** Copy the fixture project into a fresh temporary folder. */
export async function copyProject(prefix = 'toolweave-mcp-'): Promise<Project> {
  const root = await mkdtemp(path.join(os.tmpdir(), prefix));
  await cp(FIXTURE, root, { recursive: true });
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

/** A client connected to a child process over stdio. */
export interface ChildClient {
  client: Client;
  /** The child's process id. */
  pid: number | null;
  /** What the child wrote to stderr. */
  stderr(): string;
  close(): Promise<void>;
}

/** Start `command args` and connect an SDK client to it over stdio. */
export async function connectStdio(command: string, args: string[], options: { cwd?: string; capabilities?: ClientCapabilities; env?: Record<string, string> } = {}): Promise<ChildClient> {
  const transport = new StdioClientTransport({ command, args, cwd: options.cwd, stderr: 'pipe', ...(options.env ? { env: { ...(process.env as Record<string, string>), ...options.env } } : {}) });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'toolweave-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  await client.connect(transport);
  return { client, pid: transport.pid, stderr: () => stderr, close: () => client.close() };
}

/**
 * Wait until `check` holds, at most `ms`; answers whether it held. A line a child logs as it
 * answers comes down another pipe than the answer, and may be read after it: wait for it so.
 */
export async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await sleep(10);
  return check();
}

/** The filesystem server over stdio, serving `root`. */
export function connectFilesystem(root: string): Promise<ChildClient> {
  return connectStdio(process.execPath, [FS_SERVER, root]);
}

/** A client connected in process to `server`. */
export async function connectInMemory(server: Server, capabilities: ClientCapabilities = {}): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'toolweave-test', version: '1.0.0' }, { capabilities });
  await client.connect(clientSide);
  return client;
}

/**
 * The processes still running whose command line holds `marker` (a test's own temporary folder)
 * and names the filesystem server, a test-defined server or the toolweave proxy.
 */
export function liveProcesses(marker: string): string[] {
  const table = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return table
    .split('\n')
    .filter((line) => line.includes(marker) && /server-filesystem|plain-server|unruly-server|toolweave.* mcp/u.test(line) && !line.includes(' ps -eo'));
}

/**
 * The processes of {@link liveProcesses} still running once they have had up to `ms` to exit:
 * `[]` as soon as none is left. A process that has been told to stop takes a moment to go, and on
 * a loaded machine more than a fixed pause allows.
 */
export async function processesLeft(marker: string, ms = 10_000): Promise<string[]> {
  const end = Date.now() + ms;
  let left = liveProcesses(marker);
  while (left.length > 0 && Date.now() < end) {
    await sleep(100);
    left = liveProcesses(marker);
  }
  return left;
}

/** Resolve after `ms`. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
