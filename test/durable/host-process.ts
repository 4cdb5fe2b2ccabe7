/**
 * A DBOS host process a crash test starts and kills: its output as it comes, its exit, and a wait
 * for what it should do next that says what did not happen.
 */
import { spawn, type ChildProcess } from 'node:child_process';

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
