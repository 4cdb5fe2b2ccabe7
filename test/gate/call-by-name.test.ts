/**
 * callByName, the path every front door takes for one call: the chainability rule with the host's
 * list (and without one), then the gate, whatever gate it is: a host-made gate that throws or
 * answers something odd still gives a result with a code.
 */
import { describe, expect, it } from 'vitest';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { callByName, callResolved } from '../../src/gate/call.js';
import type { StepGate } from '../../src/gate/options.js';
import type { ITool } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

function setup() {
  const deleteRepo = tool('delete_repo', () => 'deleted', { hasSideEffects: true });
  const read = tool('read', () => 'text');
  const vague = tool('vague', () => 'maybe', {});
  const reg = registry(deleteRepo, read, vague);
  return { reg, gate: reg.gate(), deleteRepo, read, vague };
}

describe('callByName and the chainability rule', () => {
  it('with no list at all, a side-effecting tool is not chained and does not run', async () => {
    const { gate, deleteRepo } = setup();
    for (const options of [undefined, {}, { sideEffectingTools: undefined }]) {
      const { result, tool: ran } = await callByName(gate, 'delete_repo', {}, {}, options);
      expect(result.details).toMatchObject({ code: 'step_not_chainable', tool: 'delete_repo' });
      expect(ran).toBeUndefined();
    }
    expect(deleteRepo.calls).toHaveLength(0);
  });

  it('with an empty list, as a list or a set, neither', async () => {
    const { gate, deleteRepo } = setup();
    for (const sideEffectingTools of [[], new Set<string>(), ['other'], new Set(['other'])]) {
      expect((await callByName(gate, 'delete_repo', {}, {}, { sideEffectingTools })).result.details?.code).toBe('step_not_chainable');
    }
    expect(deleteRepo.calls).toHaveLength(0);
  });

  it('a listed side-effecting tool runs, whether the list is an array or a set, and the instance that ran is returned', async () => {
    const { gate, deleteRepo } = setup();
    for (const sideEffectingTools of [['delete_repo'], new Set(['delete_repo'])]) {
      const { result, tool: ran } = await callByName(gate, 'delete_repo', { repo: 'x' }, {}, { sideEffectingTools });
      expect(result).toMatchObject({ success: true, output: 'deleted' });
      expect(ran).toBe(deleteRepo);
    }
    expect(deleteRepo.calls).toEqual([{ repo: 'x' }, { repo: 'x' }]);
  });

  it('a pure tool runs with no list; one that declares nothing never does, listed or not', async () => {
    const { gate, vague } = setup();
    expect((await callByName(gate, 'read', {}, {})).result.output).toBe('text');
    for (const options of [{}, { sideEffectingTools: ['vague'] }]) {
      expect((await callByName(gate, 'vague', {}, {}, options)).result.details).toMatchObject({ code: 'side_effects_undeclared', tool: 'vague' });
    }
    expect(vague.calls).toHaveLength(0);
  });

  it('a tool whose hasSideEffects is anything but a boolean is treated as undeclared', async () => {
    const { reg, gate } = setup();
    const odd = tool('odd', () => 'ran', { hasSideEffects: 'false' as unknown as boolean });
    reg.add(odd);
    expect((await callByName(gate, 'odd', {}, {}, { sideEffectingTools: ['odd'] })).result.details?.code).toBe('side_effects_undeclared');
    expect(odd.calls).toHaveLength(0);
  });

  it('a missing name is step_missing, naming the closest registered names', async () => {
    const { gate } = setup();
    const { result } = await callByName(gate, 'raed', {}, {});
    expect(result.details).toMatchObject({ code: 'step_missing', tool: 'raed' });
    expect(result.error).toContain('No tool named "raed" is registered; did you mean read?');
  });

  it('a missing name on a gate whose list of names throws is still step_missing, without suggestions', async () => {
    const { reg } = setup();
    const gate: StepGate = {
      resolve: (name) => reg.map.get(name),
      names: () => {
        throw new Error('registry offline');
      },
      run: () => Promise.resolve({ success: true }),
    };
    const { result } = await callByName(gate, 'raed', {}, {});
    expect(result.error).toBe('No tool named "raed" is registered.');
  });

  it('the refusals say what to do', async () => {
    const { gate } = setup();
    expect((await callByName(gate, 'delete_repo', {}, {})).result.error).toContain('list "delete_repo" in sideEffectingTools');
    expect((await callByName(gate, 'vague', {}, {})).result.error).toContain('declare hasSideEffects on the tool');
  });

  it("a door's list is copied when the door is made: a later change to the host's list does not widen it", async () => {
    const { reg, deleteRepo } = setup();
    const list: string[] = [];
    const set = new Set<string>();
    const fromList = createRunPipelineTool(reg.gate(), { sideEffectingTools: list });
    const fromSet = createRunPipelineTool(reg.gate(), { sideEffectingTools: set });
    list.push('delete_repo');
    set.add('delete_repo');
    for (const door of [fromList, fromSet]) {
      const result = await door.execute({ steps: [{ tool: 'delete_repo', args: {} }] }, {});
      expect(JSON.stringify(result)).toContain('step_not_chainable');
    }
    expect(deleteRepo.calls).toHaveLength(0);
  });
});

describe('callResolved: the rule is checked on the instance given, and that instance runs', () => {
  it('runs the instance it was given, not what the name resolves to now', async () => {
    const { gate, read } = setup();
    const other = tool('read', () => 'other text');
    const { result, tool: ran } = await callResolved(gate, 'read', other, {}, {});
    expect(result.output).toBe('other text');
    expect(ran).toBe(other);
    expect(read.calls).toHaveLength(0);
  });

  it('refuses an unlisted side-effecting instance even when the name resolves to a pure tool', async () => {
    const { gate, read } = setup();
    const writer = tool('read', () => 'wrote', { hasSideEffects: true });
    expect((await callResolved(gate, 'read', writer, {}, {})).result.details?.code).toBe('step_not_chainable');
    expect(writer.calls).toHaveLength(0);
    expect(read.calls).toHaveLength(0);
  });

  it('passes the step name, the timeout and the signal on to the gate', async () => {
    const { read } = setup();
    const seen: unknown[] = [];
    const gate: StepGate = {
      resolve: () => read,
      run: (t, args, context, signal, options) => (seen.push([t.name, args, context.user, signal?.aborted, options?.step, options?.timeoutMs]), Promise.resolve({ success: true, output: 1 })),
    };
    const controller = new AbortController();
    await callByName(gate, 'read', { a: 1 }, { user: 'ann' }, { step: 'first', timeoutMs: 50, signal: controller.signal });
    expect(seen).toEqual([['read', { a: 1 }, 'ann', false, 'first', 50]]);
  });
});

describe('a host-made gate: every answer becomes a result with a code', () => {
  const pure = (): ITool => tool('pure', () => 'ran');
  const gateAnswering = (run: StepGate['run']): StepGate => ({ resolve: () => pure(), run });

  it('a gate that throws or rejects is step_threw, naming the tool and the step', async () => {
    const throwing = gateAnswering(() => {
      throw new Error('gate down');
    });
    const rejecting = gateAnswering(() => Promise.reject(new Error('gate down')));
    for (const gate of [throwing, rejecting]) {
      const { result } = await callByName(gate, 'pure', {}, {}, { step: 's1' });
      expect(result).toMatchObject({ success: false, details: { code: 'step_threw', tool: 'pure', step: 's1' } });
      expect(result.error).toBe('The gate failed running tool "pure": gate down');
    }
  });

  it.each([
    ['nothing', undefined],
    ['null', null],
    ['a string', 'ok'],
    ['a success that is a string', { success: 'true', output: 1 }],
    ['a failure that is a string', { success: 'false' }],
  ])('a gate answering %s is step_bad_result; the step defaults to the tool name', async (_, answer) => {
    const { result } = await callByName(gateAnswering(() => Promise.resolve(answer as never)), 'pure', {}, {});
    expect(result).toStrictEqual({
      success: false,
      error: 'The gate answered something that is not a tool result for tool "pure".',
      details: { code: 'step_bad_result', tool: 'pure', step: 'pure' },
    });
  });

  it('a gate answering something that throws when read is step_bad_result', async () => {
    const answer = Object.defineProperty({}, 'success', {
      get() {
        throw new Error('getter');
      },
    });
    const { result } = await callByName(gateAnswering(() => Promise.resolve(answer as never)), 'pure', {}, {});
    expect(result.details).toMatchObject({ code: 'step_bad_result', tool: 'pure' });
    expect(result.error).toBe('The gate answered something unreadable for tool "pure".');
  });

  it('a failure with no code gets step_failed, keeping its own message and fields', async () => {
    const gate = gateAnswering(() => Promise.resolve({ success: false, error: 'disk full', details: { path: '/tmp' } } as never));
    const { result } = await callByName(gate, 'pure', {}, {}, { step: 's1' });
    expect(result).toEqual({ success: false, error: 'disk full', details: { path: '/tmp', code: 'step_failed', tool: 'pure', step: 's1' } });
  });

  it('a failure with no message and no details gets one', async () => {
    for (const error of [undefined, '', 42]) {
      const gate = gateAnswering(() => Promise.resolve({ success: false, error } as never));
      const { result } = await callByName(gate, 'pure', {}, {});
      expect(result.error).toBe('Tool "pure" failed.');
      expect(result.details).toEqual({ code: 'step_failed', tool: 'pure', step: 'pure' });
    }
  });

  it('a failure with a code and a success are passed on as they are', async () => {
    const failureWithCode = { success: false, error: 'no', details: { code: 'E_NO' } };
    const success = { success: true, output: 'fine' };
    for (const answer of [failureWithCode, success]) {
      const { result } = await callByName(gateAnswering(() => Promise.resolve(answer as never)), 'pure', {}, {});
      expect(result).toBe(answer);
    }
  });
});
