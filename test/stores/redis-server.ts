/**
 * A real redis-server for tests and benchmarks: started on a free loopback port with persistence
 * off, and stopped by whoever started it. It can be paused (SIGSTOP) to play a slow server, and
 * stopped and started again on the same port to play an outage.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { freePort } from '../helpers/free-port.js';

/** A running redis-server this process started. */
export interface RedisServer {
  /** Its port on 127.0.0.1. */
  port: number;
  /** Stop it (resuming it first if paused); resolves once it has exited. */
  stop(): Promise<void>;
  /** Start it again on the same port, empty. */
  start(): Promise<void>;
  /** Freeze it: connections stay open, nothing answers. */
  pause(): void;
  /** Let a paused server run again. */
  resume(): void;
}

/** How long a server may take to start or stop. */
const START_STOP_MS = 10_000;

/** Whether redis-server is on the PATH; the error says how to install it. */
export function requireRedisServer(): void {
  const found = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  if (found.error || found.status !== 0) {
    throw new Error('redis-server is not installed: apt-get install -y redis-server (.ci/run installs it)');
  }
}

/** Start redis-server on `port` and resolve once it accepts connections. */
function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir(), '--loglevel', 'notice'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`redis-server did not start within ${START_STOP_MS} ms:\n${output}`)), START_STOP_MS);
    function fail(error: Error): void {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    }
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        resolve(child);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  });
}

/** Stop a server process and wait for it to exit (killing it if it will not). */
async function halt(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGCONT');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), START_STOP_MS);
  await exited;
  clearTimeout(timer);
}

/** Start a redis-server on a free port. */
export async function startRedisServer(): Promise<RedisServer> {
  requireRedisServer();
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port);
  return {
    port,
    async stop() {
      if (child) await halt(child);
      child = undefined;
    },
    async start() {
      if (!child) child = await launch(port);
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
  };
}

/** Retry `check` until it holds, at most `ms`. */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The bytes the server has sent to clients so far. */
export async function bytesSent(client: { info(section: string): Promise<string> }): Promise<number> {
  const stats = await client.info('stats');
  return Number(/total_net_output_bytes:(\d+)/.exec(stats)?.[1]);
}
