/**
 * What a step tool can reach of the run that calls it: the depth and the composition path, and
 * nothing of the run's machinery (its budget, its door, its tracer and spans), through every door.
 * And what a step tool that writes into `sessionData` can change of the calls after it: nothing of
 * the budget, the depth or the path.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createSandboxPool, createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { CallBudget } from '../../src/gate/budget.js';
import { MAX_COMPOSITION_DEPTH } from '../../src/gate/depth.js';
import { RunFrame } from '../../src/gate/run-frame.js';
import type { ITool, ToolExecutionContext, ToolExecutionResult } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] }).getTracer('privacy');

/** Every object reachable from `root`: own keys (strings and symbols, enumerable or not), getters' values, prototypes. */
function reachable(root: unknown): Set<object> {
  const seen = new Set<object>();
  const queue: unknown[] = [root];
  while (queue.length && seen.size < 20_000) {
    const value = queue.shift();
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) continue;
    seen.add(value);
    queue.push(Object.getPrototypeOf(value));
    for (const key of Reflect.ownKeys(value)) {
      try {
        queue.push(Reflect.get(value, key));
      } catch {
        // A getter that refuses to be read on this receiver reaches nothing.
      }
    }
  }
  return seen;
}

/** What of the run's machinery a context reaches, by name; empty when none. */
function machineryIn(context: ToolExecutionContext): string[] {
  const found = new Set<string>();
  for (const value of reachable(context)) {
    if (value instanceof RunFrame) found.add('frame');
    if (value instanceof CallBudget) found.add('budget');
    if (value === tracer) found.add('tracer');
    if (typeof (value as { spanContext?: unknown }).spanContext === 'function' && value !== Object.prototype) found.add('span');
    if (Object.hasOwn(value, 'limits') || Object.hasOwn(value, 'inFlight')) found.add('budget-shaped');
  }
  return [...found].sort();
}

/** A host tool that looks at everything its context reaches, and answers with what it saw. */
function inspector() {
  const seen: { machinery: string[]; depth: unknown; path: unknown }[] = [];
  const inspect = tool('inspect', (_args, context) => {
    seen.push({ machinery: machineryIn(context), depth: context.sessionData?.emergentDepth, path: context.sessionData?.compositionPath });
    return 'looked';
  });
  return { inspect, seen };
}

/** Each door, made over `gate`, with the input that makes it call `name` once. */
function doors(reg: ReturnType<typeof registry>, gate: ReturnType<ReturnType<typeof registry>['gate']>, name: string) {
  const builder = new ComposableToolBuilder(gate);
  return {
    composite: { door: builder.build('comp', 'comp', { type: 'object' }, { steps: [{ tool: name, inputMapping: {} }] }) as ITool, input: {} },
    run_pipeline: { door: createRunPipelineTool(gate), input: { steps: [{ tool: name, args: {} }] } },
    compose: { door: createComposeTool(gate), input: { tool: name, args: {} } },
    run_js: {
      door: createScriptTool(gate, { pool }),
      input: { code: `const r = await callTool(${JSON.stringify(name)}, {}); if (r.error) throw new Error((r.error.innerCode ?? r.error.code) + ': ' + r.error.message); return r.text;` },
    },
  };
}

const DOORS = ['composite', 'run_pipeline', 'compose', 'run_js'] as const;
/** A pool of one thread: scripts nested to every level the depth allows wait on each other on it, holding nothing. */
const pool = createSandboxPool({ threads: 1 });

describe('a step tool sees the depth and the path, not the run', () => {
  it.each(DOORS)('through %s: no budget, frame, door, tracer or span is reachable from the context', async (kind) => {
    const { inspect, seen } = inspector();
    const reg = registry(inspect);
    const gate = reg.gate({ tracer });
    const { door, input } = doors(reg, gate, 'inspect')[kind];
    const result = await door.execute(input, { sessionData: { sessionId: 's1' } });
    expect(result.success).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0].machinery).toEqual([]);
    expect(seen[0].depth).toBe(1);
    expect(seen[0].path).toEqual(kind === 'composite' ? ['toolweave:comp'] : []);
    // The host's own session data reaches the step unchanged.
    expect(inspect.contexts[0].sessionData?.sessionId).toBe('s1');
  });
});

/** A host tool that rewrites everything it can reach from its context that looks like a count, a depth or a path. */
const tamperer = () => {
  let calls = 0;
  return tool('tamper', (_args, context) => {
    // A nesting the guards no longer stop is cut short here, so the test fails instead of running on.
    if (++calls > 20) return { success: false, error: 'runaway nesting', details: { code: 'runaway' } };
    const sessionData = context.sessionData!;
    for (const value of reachable(context)) {
      const record = value as Record<string, unknown>;
      for (const key of ['calls', 'inFlight', 'sandboxes']) {
        try {
          if (typeof record[key] === 'number' && Object.hasOwn(record, key)) record[key] = 0;
        } catch {
          // Frozen: left as it is.
        }
      }
    }
    sessionData.emergentDepth = 0;
    // Emptied in place as well as replaced: whoever holds the array it was given sees it empty.
    if (Array.isArray(sessionData.compositionPath)) sessionData.compositionPath.length = 0;
    sessionData.compositionPath = [];
    sessionData.toolweave = { budget: { calls: 0, inFlight: 0, limits: { calls: 1e9, inFlight: 1e9, sandboxes: 1e9 } } };
    return 'tampered';
  });
};

describe('a step tool that writes into sessionData changes nothing of the calls after it', () => {
  it('cannot give the run more calls than its budget', async () => {
    const count = tool('count', () => 'counted');
    const reg = registry(count, tamperer());
    const gate = reg.gate({ budget: { calls: 5 } });
    // A script's calls are not known before it runs: each is counted as it is made.
    const code = "const codes = []; for (const name of ['count', 'count', 'tamper', 'count', 'count', 'count']) codes.push((await callTool(name, {})).error?.code ?? 'ok'); return codes;";
    const result = await createScriptTool(gate).execute({ code }, {});
    expect(JSON.parse(String(result.output))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'budget_exceeded']);
    expect(count.calls).toHaveLength(4);
  });

  it('cannot reset the depth: a composition called after it is still refused at the limit', async () => {
    const tamper = tamperer();
    const reg = registry(tamper, tool('leaf', () => 'leaf'));
    const builder = new ComposableToolBuilder(reg.gate());
    reg.add(builder.build('inner', 'inner', { type: 'object' }, { steps: [{ tool: 'leaf', inputMapping: {} }] }));
    const outer = builder.build('outer', 'outer', { type: 'object' }, { steps: [{ tool: 'tamper', inputMapping: {} }, { tool: 'inner', inputMapping: {} }] });
    const result = await outer.execute({}, { sessionData: { emergentDepth: MAX_COMPOSITION_DEPTH - 1 } });
    expect(result.details).toMatchObject({ code: 'step_failed', innerCode: 'nesting_too_deep', depth: MAX_COMPOSITION_DEPTH });
    expect(tamper.calls).toHaveLength(1);
  });

  it('cannot clear the path: a cycle after it is still refused', async () => {
    const tamper = tamperer();
    const reg = registry(tamper, tool('again', () => 'stand-in'));
    const builder = new ComposableToolBuilder(reg.gate());
    const loop = builder.build('loop', 'loop', { type: 'object' }, { steps: [{ tool: 'tamper', inputMapping: {} }, { tool: 'again', inputMapping: {} }] });
    reg.add(loop, 'again');
    const result = await loop.execute({}, {});
    expect(result.details).toMatchObject({ code: 'composition_cycle', path: ['toolweave:loop', 'toolweave:loop'] });
    expect(tamper.calls).toHaveLength(1);
  });
});

describe('the depth cap holds when a host tool passes sessionData on to a door', () => {
  /** The deepest failure's code, down the `inner` chain and the pipeline's steps. */
  const deepest = (result: ToolExecutionResult): string => {
    const text = JSON.stringify(result);
    return text.includes('nesting_too_deep') ? 'nesting_too_deep' : text.includes('composition_cycle') ? 'composition_cycle' : String(result.details?.code);
  };

  it.each(DOORS.flatMap((kind) => [[kind, 'the same sessionData'], [kind, 'a copy of sessionData']] as const))(
    'through %s, with %s: a door calling a host tool that calls the door again stops at the limit',
    async (kind, passing) => {
      let relays = 0;
      const reg = registry();
      // Sandboxes enough for every level: the depth, not the budget, is what this stops at.
      const gate = reg.gate({ budget: { sandboxes: MAX_COMPOSITION_DEPTH + 1 } });
      let target: { door: ITool; input: Record<string, unknown> };
      // A host tool that calls the door again, passing its sessionData on (as agentos does); a copy
      // without the path, so only the depth can stop it.
      const relay = tool('relay', async (_args, context) => {
        relays++;
        const sessionData = passing === 'the same sessionData' ? context.sessionData : { ...context.sessionData, compositionPath: [] };
        return target.door.execute(target.input, { sessionData });
      });
      reg.add(relay);
      target = doors(reg, gate, 'relay')[kind];
      const result = await target.door.execute(target.input, {});
      expect(result.success).toBe(false);
      // The same sessionData keeps the path: a composite is then caught as a cycle, before the depth.
      expect(deepest(result)).toBe(kind === 'composite' && passing === 'the same sessionData' ? 'composition_cycle' : 'nesting_too_deep');
      // Entered at depths 0 to 7, each calling the relay once; the door at depth 8 is refused.
      expect(relays).toBe(kind === 'composite' && passing === 'the same sessionData' ? 1 : MAX_COMPOSITION_DEPTH);
    },
  );
});
