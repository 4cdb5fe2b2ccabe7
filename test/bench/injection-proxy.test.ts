/**
 * The injection benchmark through the real proxy, a slice of it: the banking suite's tasks through
 * run_pipeline and run_js, each in a fresh MCP session of `toolweave mcp` (the bin's source, in a
 * child process over Streamable HTTP) in front of the suite's tools served over MCP. With flows no
 * attack lands; without, they do, so the attacks are real and the refusals are the flows'.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { banking } from '../../bench/injection/banking.js';
import { measureThroughProxy } from '../../bench/injection/proxy.js';
import { processesLeft } from '../mcp/helpers.js';
import { BIN_COMMAND } from '../cli/proxy-process.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'toolweave-injection-proxy-test-'));
});
afterAll(async () => {
  // Every proxy it started has exited (their command lines name this folder's configs).
  expect(await processesLeft(root)).toEqual([]);
  await rm(root, { recursive: true, force: true });
});

describe('the injection benchmark through the proxy', () => {
  it('banking through run_pipeline and run_js: no attack succeeds with flows; without flows they do', async () => {
    const { rows } = await measureThroughProxy(
      { suites: [banking], doors: ['run_pipeline', 'run_js'], modes: ['no hook', 'no flows'], transport: 'http' },
      { bin: BIN_COMMAND, root },
    );
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row.attacks, `${row.door}, ${row.mode}`).toBe(banking.injectionTasks.length);
      if (row.mode === 'no hook') expect(row.attacksSucceeded, `${row.door}, ${row.mode}`).toBe(0);
      else expect(row.attacksSucceeded, `${row.door}, ${row.mode}`).toBeGreaterThan(0);
    }
    // The user's own payment goes through either way: flows refuses only what untrusted data steers.
    for (const row of rows) expect(row.trustedDoneWithoutQuestion, `${row.door}, ${row.mode}`).toBeGreaterThan(0);
  }, 60_000);
});
