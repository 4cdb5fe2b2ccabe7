/**
 * A DBOS host process a crash test starts and kills: its output as it comes, its exit, and a wait
 * for what it should do next that says what did not happen; and the bed such a test runs on (a
 * Postgres of its own, a folder for the hosts' ledger).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type PostgresServer } from './postgres-server.js';

/** A started host: its process, what it printed so far, and its exit code once it exits. */
export interface HostProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Start `script` with `args` under tsx, `env` added to this process's; it is pushed on `children` to be killed at the end. */
export function startHost(script: string, args: string[], env: Record<string, string>, children: ChildProcess[]): HostProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Wait (at most 60 s) until `ready()` holds; the message says what did not happen, and what the host printed. */
export async function until(ready: () => boolean, what: string, output: () => string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not happen within 60 s; the host printed:\n${output()}`);
}

/** A crash test's bed: where the hosts write their ledger, and how to start one. */
export interface CrashBed {
  /** The ledger file the hosts append to. */
  ledger: () => string;
  /** Start the host script in `mode` (with the database, the ledger and the workflow id as its arguments), `env` added. */
  start: (mode: string, env: Record<string, string>) => HostProcess;
}

/**
 * Before the file's tests: a Postgres of its own and a temp folder (named from `prefix`); after:
 * every host still running killed, the Postgres stopped and the folder removed. Hosts run `script`
 * against `database` with workflow id `workflow`.
 */
export function crashBed(prefix: string, script: string, database: string, workflow: string): CrashBed {
  let pg: PostgresServer | undefined;
  let dir: string | undefined;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    pg = await startPostgres();
    dir = mkdtempSync(path.join(tmpdir(), prefix));
  }, 60_000);
  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);
  const ledger = () => path.join(dir!, 'ledger');
  return { ledger, start: (mode, env) => startHost(script, [mode, pg!.url(database), ledger(), workflow], env, children) };
}
