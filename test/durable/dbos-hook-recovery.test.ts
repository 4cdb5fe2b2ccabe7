/**
 * The approval hook's answers are part of a door's workflow: a host killed mid-run and started
 * again with a hook that now answers otherwise (a changed policy) replays the recorded answers,
 * asks the hook nothing about the calls it replays, and ends as the first run decided. The door's
 * first step is two calls side by side (a gather), both asked about and both recorded.
 */
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { crashBed, until } from './host-process.js';

const HOST = fileURLToPath(new URL('./dbos-hook-host.ts', import.meta.url));
const WORKFLOW = 'record-hook-7';

const bed = crashBed('toolweave-dbos-hook-', HOST, 'toolweave_dbos_hook', WORKFLOW);

/** A host process in `mode`; `output()` is what it printed so far. */
function host(mode: string, hook: 'approve' | 'deny', slowMs: number) {
  return bed.start(mode, { SLOW_MS: String(slowMs), HOOK: hook });
}

/** The ledger's lines: each question to the hook, and each call's start and end. */
const lines = () => (existsSync(bed.ledger()) ? readFileSync(bed.ledger(), 'utf8').split('\n').filter((line) => line !== '') : []);
const events = () => lines().map((line) => line.split(' ').slice(0, 2).join(' ') + (line.startsWith('asked') ? ` ${line.split(' ')[2]}` : ''));

describe('toolweave/dbos: the approval hook across a recovery', () => {
  it('replays every recorded answer, side-by-side calls included, and never asks the hook again about them', async () => {
    // 1. The first host's hook approves; it is killed while the slow check (approved too) runs.
    const first = host('start', 'approve', 60_000);
    await until(() => events().includes('start slow_check'), 'the slow call starting', first.output);
    first.child.kill('SIGKILL');
    await first.exited;
    const before = events();
    expect(before.filter((e) => e.startsWith('asked')).sort()).toEqual(['asked slow_check approve', 'asked write_a approve', 'asked write_b approve']);
    expect(before.filter((e) => e.startsWith('done')).sort()).toEqual(['done write_a', 'done write_b']);

    // 2. A second host recovers it with a hook that now refuses everything: the recorded answers
    // hold, the hook is not asked, and the run ends as the first run decided.
    const second = host('recover', 'deny', 10);
    expect(await second.exited, second.output()).toBe(0);
    const result = JSON.parse(second.output().split('RESULT ')[1].split('\n')[0]) as ToolExecutionResultLike;
    expect(result, second.output()).toMatchObject({ success: true, output: { checked: { a: { wrote: 'a-7' }, b: { wrote: 'b-7' } } } });
    const after = events();
    expect(after.filter((e) => e.startsWith('asked'))).toEqual(before.filter((e) => e.startsWith('asked')));
    // The calls that ended ran once; the slow one, cut off, ran again and ended once.
    expect(after.filter((e) => e.startsWith('done')).sort()).toEqual(['done slow_check', 'done write_a', 'done write_b']);
    expect(after.filter((e) => e === 'start slow_check')).toHaveLength(2);
    // The two calls side by side were asked about in one step, before either ran; the check in its own.
    const steps = (JSON.parse(second.output().split('STEPS ')[1].split('\n')[0]) as string[]).filter((name) => name.startsWith('toolweave '));
    expect(steps.map((name) => name.split(' ').slice(0, 2).join(' '))).toEqual(['toolweave approval', 'toolweave write_a', 'toolweave write_b', 'toolweave approval', 'toolweave slow_check']);
  }, 180_000);
});

interface ToolExecutionResultLike {
  success: boolean;
  output?: unknown;
}
