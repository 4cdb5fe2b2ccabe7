/**
 * The tests that need a redis-server say so in one line when there is none, rather than failing
 * further on with an error about something else.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireRedisServer } from './redis-server.js';

describe('requireRedisServer', () => {
  it('says how to install redis-server when it is not on the PATH', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'toolweave-no-redis-'));
    const saved = process.env.PATH;
    process.env.PATH = empty;
    try {
      expect(() => requireRedisServer()).toThrow(/^redis-server is not installed: apt-get install -y redis-server/u);
    } finally {
      process.env.PATH = saved;
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('passes where redis-server is installed, as CI installs it', () => {
    expect(() => requireRedisServer()).not.toThrow();
  });
});
