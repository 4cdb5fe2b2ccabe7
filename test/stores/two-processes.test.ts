/**
 * Two real processes share one Redis: one wraps a large result, the other pages it by id, as two
 * replicas behind a load balancer would. The scope rule holds across them.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolExecutionResult } from '../../src/tool.js';
import { requireRedisServer, startRedisServer, type RedisServer } from './redis-server.js';

// Without redis-server the file fails here, once, with the line that says how to install it.
requireRedisServer();

const run = promisify(execFile);
const REPLICA = fileURLToPath(new URL('./observation-process.ts', import.meta.url));

/** Run one replica process and read what it printed. */
async function replica(...args: string[]): Promise<{ pid: number; result: ToolExecutionResult<string> }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', REPLICA, ...args], { timeout: 30_000 });
  return JSON.parse(stdout) as { pid: number; result: ToolExecutionResult<string> };
}

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('a shared Redis store across processes', () => {
  it('one process stores a large result, another pages it; another session cannot', async () => {
    const port = String(server.port);
    const wrapped = await replica('wrap', port, 'alice', '900');
    const { id, lines } = wrapped.result.details?.observation as { id: string; lines: number };
    expect(lines).toBe(900);
    expect(wrapped.result.output).toContain(`get_observation {"ids":["${id}"],"offset":40}`);

    const paged = await replica('page', port, 'alice', id, '880');
    expect(paged.pid).not.toBe(wrapped.pid);
    expect(paged.result).toEqual({
      success: true,
      output: Array.from({ length: 20 }, (_, index) => `line ${881 + index}`).join('\n'),
    });

    const other = await replica('page', port, 'bob', id, '880');
    expect(other.result).toMatchObject({ success: false, details: { code: 'observation_unknown' } });
    expect(other.result.error).toBe(`${id}: no such observation`);
  });
});
