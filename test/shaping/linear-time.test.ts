/**
 * Shaping runs on whatever a tool read, so input built to make it backtrack must cost about what
 * ordinary input of the same size costs. Timed relative to that ordinary input in the same test
 * (never against a fixed number of milliseconds), with a generous bound: the quadratic patterns
 * this replaces took thousands of times longer at this size.
 */
import { describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { createObservationStore } from '../../src/agent-tools/observations/memory-store.js';
import { withObservations } from '../../src/agent-tools/observations/with-observations.js';
import { looksLikePathList } from '../../src/shaping/looks-like-path-list.js';
import { shapePathList } from '../../src/shaping/path-list.js';
import { splitLines } from '../../src/shaping/text-lines.js';
import { mockTool } from '../agent-tools/observations/helpers.js';

/** The size of every input here, in characters. */
const SIZE = 64 * 1024;
/** How many times slower than ordinary input an adversarial one may be. */
const BOUND = 10;

/** The fastest of a few runs: the least disturbed by other work on the machine. */
function fastest(run: () => unknown, runs = 7): number {
  let best = Number.POSITIVE_INFINITY;
  for (let index = 0; index < runs; index++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/** Lines of `make(width)`, `count` of them, about SIZE characters in all. */
function linesOf(count: number, make: (width: number) => string): string {
  const width = Math.floor(SIZE / count) - 1;
  return Array.from({ length: count }, () => make(width)).join('\n');
}

const ORDINARY = {
  log: linesOf(1600, (width) => '2024-05-01T12:00:00Z INFO worker started a job'.padEnd(width, '.')),
  paths: linesOf(1600, (width) => `src/components/ui/${'widget-name'.padEnd(width - 22, 'x')}.tsx`),
  matches: linesOf(1600, (width) => `src/app/cache.ts:12: ${'const key = cacheKey(a, b)'.padEnd(width - 20, ' ')}`),
};
const ADVERSARIAL = {
  slashes: linesOf(5, (width) => `${'/'.repeat(width - 1)} `),
  'slash-dash': linesOf(5, (width) => `a${'/-'.repeat((width - 2) / 2)} `),
  dots: linesOf(5, (width) => `a${'.'.repeat(width - 2)}!`),
  'dot-dash-digits': linesOf(5, (width) => `a.${'-1'.repeat((width - 3) / 2)}x`),
  'long-colon-path': linesOf(5, (width) => `${'a/'.repeat((width - 4) / 2)}:1x `),
};

/** A tool whose output is its `text` argument. */
const tool = mockTool((args) => ({ success: true, output: String(args.text) }));

describe('shaping runs in linear time on any input', () => {
  it('detects a path list in about the time of ordinary text of the same size', () => {
    const ordinary = Math.max(...Object.values(ORDINARY).map((text) => fastest(() => looksLikePathList(text))));
    for (const [name, text] of Object.entries(ADVERSARIAL)) {
      expect(text.length, name).toBeGreaterThan(SIZE * 0.95);
      const adversarial = fastest(() => looksLikePathList(text));
      expect(adversarial, `${name}: ${adversarial.toFixed(3)} ms against ${ordinary.toFixed(3)} ms`).toBeLessThanOrEqual(BOUND * ordinary);
    }
  });

  it('groups hostile path-like lines in about the time of an ordinary path list', () => {
    const ordinary = fastest(() => shapePathList(splitLines(ORDINARY.paths)));
    const hostile = {
      'long shared prefixes': linesOf(40, (width) => `${'d/'.repeat((width - 6) / 2)}x${Math.random().toString(36).slice(2, 6)}`),
      'long match prefixes': linesOf(40, (width) => `${'p/'.repeat((width - 6) / 2)}:1: x`),
      ...ADVERSARIAL,
    };
    for (const [name, text] of Object.entries(hostile)) {
      const lines = splitLines(text);
      const adversarial = fastest(() => shapePathList(lines));
      expect(adversarial, `${name}: ${adversarial.toFixed(3)} ms against ${ordinary.toFixed(3)} ms`).toBeLessThanOrEqual(BOUND * ordinary);
    }
  });

  it('shapes an adversarial result for the model in about the time of an ordinary one', async () => {
    const wrapped = withObservations(tool, createObservationStore());
    const shape = async (text: string) => {
      let best = Number.POSITIVE_INFINITY;
      for (let index = 0; index < 7; index++) {
        const start = performance.now();
        await wrapped.execute({ text }, {});
        best = Math.min(best, performance.now() - start);
      }
      return best;
    };
    const ordinary = Math.max(await shape(ORDINARY.log), await shape(ORDINARY.paths));
    for (const [name, text] of Object.entries(ADVERSARIAL)) {
      const adversarial = await shape(text);
      expect(adversarial, `${name}: ${adversarial.toFixed(3)} ms against ${ordinary.toFixed(3)} ms`).toBeLessThanOrEqual(BOUND * ordinary);
    }
  });
});
