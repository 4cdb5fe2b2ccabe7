/**
 * serveHttp under a flood of requests that never become a session: its memory stays flat. The
 * server runs in a child process with `--expose-gc`, so its heap can be measured after full
 * collections, against a baseline taken in the same run after a warm-up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryReport } from './fixtures/http-memory-server.js';
import { REFUSED, type RefusedRequest } from './http-requests.js';
import { REPO } from './helpers.js';

const CHILD = path.join(REPO, 'test/mcp/fixtures/http-memory-server.ts');
const WARM_UP = 1_000;
const FLOOD = 10_000;
const PARALLEL = 8;
/**
 * How much the heap may grow over the flood. Each server the child makes holds 64 kB, so 300 left
 * open would add more than 19 MB; a full collection leaves a few hundred kB of noise.
 */
const HEAP_MARGIN_BYTES = 8 * 1024 * 1024;

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill();
  child = undefined;
});

/** The next IPC message from the child, or a failure after `ms`. */
function nextMessage<T>(from: ChildProcess, ms = 30_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the child did not answer')), ms);
    from.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as T);
    });
  });
}

/** Send one refused request over `agent`; resolves with its status once its body is read. */
function send(url: string, agent: Agent, refused: RefusedRequest): Promise<number> {
  const { method, headers, body } = refused.init as { method: string; headers: Record<string, string>; body?: string };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** Send `total` refused requests, every kind in turn, `PARALLEL` at a time; the statuses seen, by kind. */
async function flood(url: string, total: number): Promise<Map<string, Set<number>>> {
  const agent = new Agent({ keepAlive: true, maxSockets: PARALLEL });
  const seen = new Map<string, Set<number>>(REFUSED.map((r) => [r.name, new Set<number>()]));
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const refused = REFUSED[next++ % REFUSED.length];
      seen.get(refused.name)!.add(await send(url, agent, refused));
    }
  };
  try {
    await Promise.all(Array.from({ length: PARALLEL }, worker));
  } finally {
    agent.destroy();
  }
  return seen;
}

describe('serveHttp under refused requests', () => {
  it(`keeps no server and no memory for ${FLOOD} requests that never become a session`, async () => {
    child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD], { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const { url } = await nextMessage<{ url: string }>(child);
    const measure = async () => {
      child!.send('measure');
      return nextMessage<MemoryReport>(child!);
    };

    await flood(url, WARM_UP);
    const before = await measure();
    const seen = await flood(url, FLOOD);
    const after = await measure();

    for (const { name, status } of REFUSED) expect({ name, statuses: [...seen.get(name)!] }).toEqual({ name, statuses: [status] });
    expect({ live: after.live, sessions: after.sessions }).toEqual({ live: 0, sessions: 0 });
    const grown = after.heapBytes - before.heapBytes;
    expect(grown, `heap ${before.heapBytes} -> ${after.heapBytes} bytes (rss ${before.rssBytes} -> ${after.rssBytes}), ${after.made} servers made`).toBeLessThan(HEAP_MARGIN_BYTES);

    child.send('close');
    expect(await nextMessage<{ live: number }>(child)).toEqual({ live: 0 });
  }, 180_000);
});
