/**
 * A run paused in one process is resumed in another through the Redis journal, as two replicas
 * behind a load balancer would: the resumed result is the run's whole result, each tool runs once
 * across both, and a token used from another session reads as unknown. A process killed in the
 * middle of a side-effecting call leaves it marked: once its lease lapses, another process gets
 * the call back pending, `unknown: true`, and runs it again only on a new approval.
 */
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolExecutionResult } from '../../src/tool.js';
import { delay } from '../helpers/tools.js';
import { requireRedisServer, startRedisServer, type RedisServer } from './redis-server.js';

requireRedisServer();

const run = promisify(execFile);
const REPLICA = fileURLToPath(new URL('./run-journal-process.ts', import.meta.url));
const NODE_ARGS = ['--import', 'tsx', REPLICA];

/** Each test starts several processes, each loading TypeScript (a few seconds each on a busy machine). */
const PROCESSES_MS = 120_000;

interface Printed {
  pid: number;
  result: ToolExecutionResult;
}

let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis({ host: '127.0.0.1', port: server.port });
});
afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

/** Run one replica to its end and read what it printed. */
async function replica(role: string, label: string, session: string, token = '', leaseMs = '600000'): Promise<Printed> {
  const { stdout } = await run(process.execPath, [...NODE_ARGS, role, String(server.port), label, session, token, leaseMs], { timeout: 30_000 });
  return JSON.parse(stdout) as Printed;
}

/** How many times each tool ran under `label`, across every process. */
async function effects(label: string): Promise<Record<string, number>> {
  const [read, send, after] = await admin.mget(`effects:${label}:read`, `effects:${label}:send`, `effects:${label}:after`);
  return { read: Number(read), send: Number(send), after: Number(after) };
}

function pending(result: ToolExecutionResult): { resume: string; pending: Record<string, unknown>[] } {
  expect(result.details?.code).toBe('approval_pending');
  return result.details as { resume: string; pending: Record<string, unknown>[] };
}

describe('a run paused in one process and resumed in another', () => {
  it('resumes to the whole result, runs each tool once across both, and refuses the token from another session', async () => {
    const paused = await replica('pause', 'one', 'alice');
    const { resume: token } = pending(paused.result);
    expect(await effects('one')).toEqual({ read: 1, send: 0, after: 0 });

    const stranger = await replica('resume', 'one', 'bob', token);
    expect(stranger.result.details?.code).toBe('resume_token_unknown');

    const resumed = await replica('resume', 'one', 'alice', token);
    expect(resumed.pid).not.toBe(paused.pid);
    expect(resumed.pid).not.toBe(stranger.pid);
    const straight = await replica('straight', 'straight', 'alice');
    expect(resumed.result).toMatchObject({ success: true, output: { done: 'note 5' } });
    expect(resumed.result.output).toEqual(straight.result.output);
    expect(resumed.result.effects).toEqual(straight.result.effects);
    expect(resumed.result.details?.trace).toEqual(straight.result.details?.trace);
    expect(await effects('one')).toEqual({ read: 1, send: 1, after: 1 });

    // The run ended: its token is spent, in any process.
    expect((await replica('resume', 'one', 'alice', token)).result.details?.code).toBe('resume_token_unknown');
    expect(await effects('one')).toEqual({ read: 1, send: 1, after: 1 });
  }, PROCESSES_MS);

  it('a process killed in the middle of the approved call: its token stays busy while it lives; a lease after it died, another process gets the call back pending, unknown', async () => {
    const { resume: token } = pending((await replica('pause', 'kill', 'alice')).result);

    // This resumption claims the token with a 300 ms lease, starts `send`, and is killed inside it.
    const leaseMs = 300;
    const child = spawn(process.execPath, [...NODE_ARGS, 'hang', String(server.port), 'kill', 'alice', token, String(leaseMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the resumption did not start send within 30 s')), 30_000);
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('started')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', () => reject(new Error(`the resumption exited before send started: ${output}`)));
    });
    // Alive, it renews its lease: long past 300 ms, another process still finds the token busy.
    await delay(4 * leaseMs);
    const busy = await replica('resume', 'kill', 'alice', token, String(leaseMs));
    expect(busy.result.details).toEqual({ code: 'resume_busy', retryAfterMs: leaseMs });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(await effects('kill')).toEqual({ read: 1, send: 1, after: 0 });
    await delay(leaseMs + 100);

    const again = await replica('resume', 'kill', 'alice', token);
    const waiting = pending(again.result);
    expect(waiting.pending).toEqual([expect.objectContaining({ tool: 'send', step: 'send', args: { text: 'note 5' }, unknown: true })]);
    expect(waiting.resume).not.toBe(token);
    expect(await effects('kill')).toEqual({ read: 1, send: 1, after: 0 });

    // A person says to run it again: it runs once more, and the run ends.
    const done = await replica('resume', 'kill', 'alice', waiting.resume);
    expect(done.result).toMatchObject({ success: true, output: { done: 'note 5' } });
    expect(await effects('kill')).toEqual({ read: 1, send: 2, after: 1 });
  }, PROCESSES_MS);
});
