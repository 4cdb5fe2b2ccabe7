/**
 * The depth cap on the path real hosts take: the context a host gives a door already carries
 * `sessionData` (a session id, and often a depth of its own). Through each door, a run entered at
 * the cap is refused `nesting_too_deep` before any call, one entered just under it runs, and doors
 * nested under such a context count each level, so the nesting stops at the cap.
 */
import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createSandboxPool, createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { compositionRefusal, depthOf, MAX_COMPOSITION_DEPTH, nestedContext } from '../../src/gate/depth.js';
import { readerOf } from '../../src/shaping/result-reader.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

const DOORS = ['composite', 'run_pipeline', 'compose', 'run_js'] as const;
type Door = (typeof DOORS)[number];

/** A pool of one thread: scripts nested to every level the depth allows wait on each other on it. */
const pool = createSandboxPool({ threads: 1 });

/** The door of `kind` over `gate`, with the input that makes it call `name` once. */
function door(kind: Door, gate: ReturnType<ReturnType<typeof registry>['gate']>, name: string): { door: ITool; input: Record<string, unknown> } {
  switch (kind) {
    case 'composite':
      return { door: new ComposableToolBuilder(gate).build('comp', 'comp', { type: 'object' }, { steps: [{ tool: name, inputMapping: {} }] }) as ITool, input: {} };
    case 'run_pipeline':
      return { door: createRunPipelineTool(gate), input: { steps: [{ tool: name, args: {} }] } };
    case 'compose':
      return { door: createComposeTool(gate), input: { tool: name, args: {} } };
    case 'run_js':
      return {
        door: createScriptTool(gate, { pool }),
        input: { code: `const r = await callTool(${JSON.stringify(name)}, {}); if (r.error) throw new Error((r.error.innerCode ?? r.error.code) + ': ' + r.error.message); return r.text;` },
      };
  }
}

/** Every failure code in `result`, down the `inner` chains and a pipeline's steps (as text). */
const mentions = (result: ToolExecutionResult, code: string): boolean => JSON.stringify(result).includes(code);

describe('a host context that carries sessionData, at and under the cap', () => {
  it.each(DOORS)('through %s: at the cap the run is refused nesting_too_deep, naming the depth and the limit, before any call', async (kind) => {
    const leaf = tool('leaf', () => 'ran');
    const reg = registry(leaf);
    const { door: d, input } = door(kind, reg.gate(), 'leaf');
    const result = await d.execute(input, { sessionData: { sessionId: 's1', emergentDepth: MAX_COMPOSITION_DEPTH } });
    expect(result).toMatchObject({
      success: false,
      error: `Compositions nest at most ${MAX_COMPOSITION_DEPTH} deep.`,
      details: { code: 'nesting_too_deep', depth: MAX_COMPOSITION_DEPTH, limit: MAX_COMPOSITION_DEPTH },
    });
    expect(leaf.calls).toHaveLength(0);
  });

  it.each(DOORS)('through %s: one level under the cap the run goes ahead, its call one level deeper, the host fields kept', async (kind) => {
    const leaf = tool('leaf', () => 'ran');
    const reg = registry(leaf);
    const { door: d, input } = door(kind, reg.gate(), 'leaf');
    const result = await d.execute(input, { sessionData: { sessionId: 's1', emergentDepth: MAX_COMPOSITION_DEPTH - 1 } });
    expect(result.success).toBe(true);
    expect(leaf.calls).toHaveLength(1);
    const seen = leaf.contexts[0];
    expect(seen.sessionData).toMatchObject({ sessionId: 's1', emergentDepth: MAX_COMPOSITION_DEPTH });
    expect(depthOf(seen)).toBe(MAX_COMPOSITION_DEPTH);
  });
});

describe('doors nested under a host context that carries sessionData stop at the cap', () => {
  /**
   * A door whose one call is a host tool that enters the same door again, from a host context with
   * `sessionData` at depth `start`: the depths the relay saw, and the run's result. The relay passes
   * its context on as it was given (`same`), or with a copy of `sessionData` without the path
   * (`copy`: the door then counts from the depth the copy says, and only the depth can stop a
   * composite). A nesting the cap does not stop is cut short a few levels past it, so the test
   * fails rather than running on.
   */
  async function nest(kind: Door, start: number, passing: 'same' | 'copy') {
    const depths: unknown[] = [];
    const reg = registry();
    // Sandboxes enough for every level: the depth, not the budget, is what stops it.
    const gate = reg.gate({ budget: { sandboxes: MAX_COMPOSITION_DEPTH + 4 } });
    let target: { door: ITool; input: Record<string, unknown> };
    const relay = tool('relay', (_args, context: ToolExecutionContext) => {
      depths.push(context.sessionData?.emergentDepth);
      if (depths.length > MAX_COMPOSITION_DEPTH + 2) return { success: false, error: 'runaway nesting', details: { code: 'runaway' } };
      const sessionData = passing === 'same' ? context.sessionData : { ...context.sessionData, compositionPath: [] };
      return target.door.execute(target.input, { ...context, sessionData });
    });
    reg.add(relay);
    target = door(kind, gate, 'relay');
    const result = await target.door.execute(target.input, { sessionData: { sessionId: 's1', emergentDepth: start } });
    return { depths, result };
  }

  const cases = DOORS.flatMap((kind) => [[kind, 'same'], [kind, 'copy']] as const);

  it.each(cases)('through %s, passing %s sessionData on: from a host depth of 0, the relay runs at depths 1 to the cap, and the next door is refused', async (kind, passing) => {
    const { depths, result } = await nest(kind, 0, passing);
    expect(result.success).toBe(false);
    expect(mentions(result, 'runaway')).toBe(false);
    if (kind === 'composite' && passing === 'same') {
      // The same composite reached again on the same path is a cycle, caught before the depth.
      expect(mentions(result, 'composition_cycle')).toBe(true);
      expect(depths).toEqual([1]);
      return;
    }
    expect(mentions(result, 'nesting_too_deep')).toBe(true);
    expect(depths).toEqual(Array.from({ length: MAX_COMPOSITION_DEPTH }, (_, i) => i + 1));
  });

  it.each(cases.filter(([kind, passing]) => kind !== 'composite' || passing === 'copy'))(
    'through %s, passing %s sessionData on: from a host depth of 5, three levels run and the fourth door is refused',
    async (kind, passing) => {
      const { depths, result } = await nest(kind, 5, passing);
      expect(result.success).toBe(false);
      expect(mentions(result, 'runaway')).toBe(false);
      expect(mentions(result, 'nesting_too_deep')).toBe(true);
      expect(depths).toEqual([6, 7, 8]);
    },
  );
});

describe('who reads the results of the calls under a host context that carries sessionData', () => {
  /** The reader each call of the door `kind` makes sees (see readerOf), from a host context with `sessionData`. */
  async function readers(kind: Door, sessionData: Record<string, unknown>) {
    const seen: string[] = [];
    const reg = registry(tool('look', (_args, context) => (seen.push(readerOf(context)), 'looked')));
    const { door: d, input } = door(kind, reg.gate(), 'look');
    const result = await d.execute(input, { sessionData });
    expect(result.success).toBe(true);
    return seen;
  }

  it.each(['composite', 'run_js', 'compose'] as const)('%s marks its calls read by code, whatever the host context said', async (kind) => {
    expect(await readers(kind, { sessionId: 's1' })).toEqual(['code']);
    expect(await readers(kind, { sessionId: 's1', resultReader: 'model' })).toEqual(['code']);
  });

  it("run_pipeline, which names no reader, keeps the host context's", async () => {
    const kind = 'run_pipeline';
    expect(await readers(kind, { sessionId: 's1', resultReader: 'code' })).toEqual(['code']);
    expect(await readers(kind, { sessionId: 's1' })).toEqual(['model']);
  });
});

describe('the context a door gives its steps', () => {
  it.each([
    ['negative', -3],
    ['not finite', Number.POSITIVE_INFINITY],
    ['not a number', '7'],
  ])('a host depth that is %s counts as 0: the steps are one level deep', async (_, emergentDepth) => {
    const leaf = tool('leaf', () => 'ran');
    const { door: d, input } = door('composite', registry(leaf).gate(), 'leaf');
    const result = await d.execute(input, { sessionData: { sessionId: 's1', emergentDepth } });
    expect(result.success).toBe(true);
    expect(depthOf(leaf.contexts[0])).toBe(1);
    expect(leaf.contexts[0].sessionData).toMatchObject({ sessionId: 's1', emergentDepth: 1 });
  });

  it("keeps the host's abort signal when the door has none of its own, and adds none when there is none", () => {
    const host = new AbortController();
    const withSignal = nestedContext({ signal: host.signal, sessionData: { sessionId: 's1' } }, {});
    expect(withSignal.signal).toBe(host.signal);
    const own = new AbortController();
    expect(nestedContext({ signal: host.signal }, {}, own.signal).signal).toBe(own.signal);
    expect(Object.keys(nestedContext({ sessionData: { sessionId: 's1' } }, {}))).toEqual(['sessionData']);
  });

  it.each([
    ['entering a composition of its own', { compositionId: 'outer' }, ['host:session', 'outer']],
    ['entering none', {}, ['host:session']],
  ] as const)("copies the host's composition path, %s: a later change of the host's array changes neither what the steps read nor the cycle guard", (_, entry, read) => {
    const hostPath = ['host:session'];
    const nested = nestedContext({ sessionData: { compositionPath: hostPath } }, entry);
    hostPath.push('later');
    expect(nested.sessionData?.compositionPath).toEqual(read);
    expect(compositionRefusal(nested, 'later')).toBeUndefined();
    expect(compositionRefusal(nested, 'host:session')).toMatchObject({ details: { code: 'composition_cycle', path: [...read, 'host:session'] } });
  });

  it('gives the steps a path of their own: a step that changes it changes nothing of the cycle guard', () => {
    const nested = nestedContext({}, { compositionId: 'outer' });
    (nested.sessionData?.compositionPath as string[]).length = 0;
    expect(compositionRefusal(nested, 'outer')).toMatchObject({ details: { code: 'composition_cycle' } });
  });
});
