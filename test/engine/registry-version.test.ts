/**
 * `createStepGate({ version })`: while the host's registry version stays the same, a composite
 * reuses the tools its last check resolved; as soon as it changes, every run and every step
 * resolves and checks again, so a tool replaced or redeclared mid-run is the one checked and run.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder } from '../../src/builder.js';
import { createStepGate } from '../../src/gate/step-gate.js';
import { createToolRegistry } from '../../src/gate/tool-registry.js';
import type { ITool } from '../../src/tool.js';
import { tool } from '../helpers/tools.js';

/** A registry that counts how often the gate resolves from it, with a version the test bumps. */
function versioned(...tools: ITool[]) {
  const map = new Map<string, ITool>(tools.map((t) => [t.name, t]));
  const counts = { resolved: 0, versionAsked: 0 };
  let version = 1;
  const gate = createStepGate({
    resolve: (name) => {
      counts.resolved++;
      return map.get(name);
    },
    version: () => {
      counts.versionAsked++;
      return version;
    },
  });
  /** Replace (or add) a tool, and bump the version as a host must. */
  const replace = (t: ITool) => {
    map.set(t.name, t);
    version++;
  };
  return { gate, counts, replace, map };
}

const chain = { steps: [{ tool: 'a', inputMapping: { n: '$input.n' } }, { tool: 'b', inputMapping: { n: '$prev.n' } }, { tool: 'c', inputMapping: { n: '$prev.n' } }] };
const plusOne = (name: string) => tool(name, (args) => ({ n: (args.n as number) + 1 }));

describe('a registry version', () => {
  it('lets runs reuse what the last check resolved while it stays the same, and still asks it every run', async () => {
    const reg = versioned(plusOne('a'), plusOne('b'), plusOne('c'));
    const composite = new ComposableToolBuilder(reg.gate).build('chain', 'chain', { type: 'object' }, chain);
    expect(await composite.execute({ n: 0 }, {})).toMatchObject({ success: true, output: { n: 3 } });
    const afterFirst = reg.counts.resolved;
    expect(afterFirst).toBeGreaterThanOrEqual(3);
    for (let i = 0; i < 4; i++) expect(await composite.execute({ n: i }, {})).toMatchObject({ success: true, output: { n: i + 3 } });
    // Nothing changed: no tool was resolved again, but the version was asked at every run.
    expect(reg.counts.resolved).toBe(afterFirst);
    expect(reg.counts.versionAsked).toBeGreaterThanOrEqual(5);
  });

  it('resolves every tool again once it changes: a replaced tool runs at the next run', async () => {
    const reg = versioned(plusOne('a'), plusOne('b'), plusOne('c'));
    const composite = new ComposableToolBuilder(reg.gate).build('chain', 'chain', { type: 'object' }, chain);
    expect(await composite.execute({ n: 0 }, {})).toMatchObject({ output: { n: 3 } });
    reg.replace(tool('b', (args) => ({ n: (args.n as number) * 100 })));
    expect(await composite.execute({ n: 0 }, {})).toMatchObject({ success: true, output: { n: 101 } });
  });

  it('refuses a tool redeclared as side-effecting at the next run, before any step runs', async () => {
    const a = plusOne('a');
    const reg = versioned(a, plusOne('b'), plusOne('c'));
    const composite = new ComposableToolBuilder(reg.gate).build('chain', 'chain', { type: 'object' }, chain);
    expect((await composite.execute({ n: 0 }, {})).success).toBe(true);
    reg.replace(tool('c', (args) => args, { hasSideEffects: true }));
    const refused = await composite.execute({ n: 0 }, {});
    expect(refused.details).toMatchObject({ code: 'step_not_chainable', tool: 'c' });
    // The check came before the first step: `a` ran once, in the first run only.
    expect(a.calls).toHaveLength(1);
  });

  it('is asked again before each step: a tool replaced during a run is the one the next step checks and runs', async () => {
    let reg!: ReturnType<typeof versioned>;
    const swapper = tool('a', (args) => {
      reg.replace(tool('c', (next) => ({ n: (next.n as number) * 10 })));
      return { n: (args.n as number) + 1 };
    });
    reg = versioned(swapper, plusOne('b'), plusOne('c'));
    const composite = new ComposableToolBuilder(reg.gate).build('chain', 'chain', { type: 'object' }, chain);
    // a: 0 + 1, b: + 1, c (replaced while a ran): * 10.
    expect(await composite.execute({ n: 0 }, {})).toMatchObject({ success: true, output: { n: 20 } });
  });

  it('refuses a step whose tool became side-effecting during the run, after the steps before it ran', async () => {
    let reg!: ReturnType<typeof versioned>;
    const swapper = tool('a', (args) => {
      reg.replace(tool('c', (next) => next, { hasSideEffects: true }));
      return { n: args.n };
    });
    const b = plusOne('b');
    reg = versioned(swapper, b, plusOne('c'));
    const composite = new ComposableToolBuilder(reg.gate).build('chain', 'chain', { type: 'object' }, chain);
    const result = await composite.execute({ n: 0 }, {});
    expect(result.details).toMatchObject({ code: 'step_not_chainable', tool: 'c' });
    expect(b.calls).toHaveLength(1);
  });
});

describe('createToolRegistry', () => {
  it('changes its version with every set and every delete that removes a tool, and only then', () => {
    const registry = createToolRegistry([plusOne('a')]);
    const first = registry.version;
    registry.get('a');
    registry.names();
    expect(registry.version).toBe(first);
    expect(registry.delete('missing')).toBe(false);
    expect(registry.version).toBe(first);
    registry.set(plusOne('b'));
    expect(registry.version).not.toBe(first);
    const second = registry.version;
    expect(registry.delete('b')).toBe(true);
    expect(registry.version).not.toBe(second);
    expect(registry.gateOptions.version()).toBe(registry.version);
    expect(registry.names()).toEqual(['a']);
    expect(registry.tools().map((t) => t.name)).toEqual(['a']);
    expect([...registry.gateOptions.names()]).toEqual(['a']);
  });

  it('never gives a version twice, so a check made at an earlier version is never taken for a later one', () => {
    const registry = createToolRegistry([plusOne('a')]);
    const seen = [registry.version];
    registry.set(plusOne('a'));
    seen.push(registry.version);
    registry.delete('a');
    seen.push(registry.version);
    registry.set(plusOne('a'));
    seen.push(registry.version);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('registers under a given name, and refuses a name that is not a non-empty string', () => {
    const registry = createToolRegistry();
    registry.set(plusOne('a'), 'alias');
    expect(registry.get('alias')?.name).toBe('a');
    expect(registry.gateOptions.resolve('alias')?.name).toBe('a');
    expect(() => registry.set(plusOne('a'), '  ')).toThrow(/non-empty name/);
    expect(() => registry.set({ ...plusOne('a'), name: undefined as unknown as string })).toThrow(/registry.set\(tool, "name"\)/);
    expect(() => registry.set(undefined as unknown as ITool)).toThrow(/non-empty name; got undefined/);
    expect(() => registry.set(plusOne('a'), Symbol('odd') as unknown as string)).toThrow(/got Symbol\(odd\)/);
    expect(registry.names()).toEqual(['alias']);
  });

  it('gives a gate the fast path, and a composite sees every replacement and removal at its next run', async () => {
    const registry = createToolRegistry([plusOne('a'), plusOne('b'), plusOne('c')]);
    let resolved = 0;
    const resolve = registry.gateOptions.resolve;
    const gate = createStepGate({ ...registry.gateOptions, resolve: (name) => (resolved++, resolve(name)) });
    const composite = new ComposableToolBuilder(gate).build('chain', 'three steps', { type: 'object' }, chain);
    expect((await composite.execute({ n: 0 }, {})).output).toEqual({ n: 3 });
    const afterFirst = resolved;
    expect((await composite.execute({ n: 0 }, {})).output).toEqual({ n: 3 });
    // Nothing changed: the second run resolved nothing.
    expect(resolved).toBe(afterFirst);
    registry.set(tool('b', (args) => ({ n: (args.n as number) + 10 })));
    expect((await composite.execute({ n: 0 }, {})).output).toEqual({ n: 12 });
    registry.delete('c');
    const gone = await composite.execute({ n: 0 }, {});
    expect(gone.success).toBe(false);
    expect(gone.details?.code).toBe('step_missing');
  });
});
