import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { registry, tool } from '../helpers/tools.js';

function setup() {
  const user = tool('user', () => ({ name: 'Ann', items: [{ id: 1 }, { id: 2 }] }));
  const echo = tool('echo', (a) => a);
  const reg = registry(user, echo);
  return { reg, pipeline: createRunPipelineTool(reg.gate()), echo };
}

describe('run_pipeline references', () => {
  it('reach into an object output: ${id.output.field} and ${step_N.output.items[0]}', async () => {
    const { pipeline, echo } = setup();
    const result = await pipeline.execute({
      steps: [{ id: 'u', tool: 'user', args: {} }, { tool: 'echo', args: { name: '${u.output.name}', first: '${step_1.output.items[0]}', id: 'id ${ u.output.items[1].id }' } }],
    }, {});
    expect(result.success).toBe(true);
    expect(echo.calls).toEqual([{ name: 'Ann', first: { id: 1 }, id: 'id 2' }]);
    expect(result.details?.unresolved).toBeUndefined();
  });

  it('write an object inside a longer string as JSON, never [object Object]', async () => {
    const { pipeline, echo } = setup();
    await pipeline.execute({ steps: [{ id: 'u', tool: 'user', args: {} }, { tool: 'echo', args: { text: 'user: ${u.output} (and ${u.output.items})' } }] }, {});
    expect(echo.calls[0].text).toBe('user: {"name":"Ann","items":[{"id":1},{"id":2}]} (and [{"id":1},{"id":2}])');
  });

  it('leave references to later or unknown steps as written, and say so in the result', async () => {
    const { pipeline, echo } = setup();
    const result = await pipeline.execute({
      steps: [
        { id: 'first', tool: 'echo', args: { a: '${later.output}', b: '${step_3.output}' } },
        { id: 'u', tool: 'user', args: {} },
        { id: 'later', tool: 'echo', args: { c: '${usr.output.name}', d: '${step_9.output}' } },
      ],
    }, {});
    expect(result.success).toBe(true);
    expect(echo.calls).toEqual([{ a: '${later.output}', b: '${step_3.output}' }, { c: '${usr.output.name}', d: '${step_9.output}' }]);
    expect(result.details?.unresolved).toEqual([
      { step: 'first', reference: '${later.output}', reason: '"later" runs later' },
      { step: 'first', reference: '${step_3.output}', reason: '"step_3" runs later' },
      { step: 'later', reference: '${usr.output.name}', reason: 'no step is named "usr"' },
      { step: 'later', reference: '${step_9.output}', reason: 'no step is named "step_9"' },
    ]);
    expect(String(result.output).split('\n').at(-1)).toMatch(/^note: left as written: \$\{later\.output\} in first \("later" runs later\); /);
  });

  it('refuse a pipeline whose args nest without end (a cyclic object from a host caller) without hanging', async () => {
    const { pipeline } = setup();
    const args: Record<string, unknown> = {};
    args.self = args;
    const result = await pipeline.execute({ steps: [{ tool: 'echo', args }] }, {});
    expect(result.details?.code).toBe('input_invalid');
  });
});

describe('refusals say where and what to do', () => {
  it('step_not_chainable and side_effects_undeclared name the step and the fix', async () => {
    const write = tool('write_file', () => 'w', { hasSideEffects: true });
    const vague = tool('vague', () => 'v', {});
    const pipeline = createRunPipelineTool(registry(write, vague).gate());
    const unlisted = await pipeline.execute({ steps: [{ id: 'save', tool: 'write_file', args: {} }] }, {});
    expect(unlisted.error).toMatch(/^save: Tool "write_file" has side effects.*call it directly, or list "write_file" in sideEffectingTools/);
    const undeclared = await pipeline.execute({ steps: [{ id: 'guess', tool: 'vague', args: {} }] }, {});
    expect(undeclared.error).toMatch(/^guess: Tool "vague" does not declare whether it has side effects.*declare hasSideEffects on the tool/);
  });

  it('step_missing suggests the closest registered names', async () => {
    const { pipeline } = setup();
    const result = await pipeline.execute({ steps: [{ tool: 'ecoh', args: {} }] }, {});
    expect(result.details?.code).toBe('step_missing');
    expect(result.error).toContain('No tool named "ecoh" is registered; did you mean echo?');
  });

  it('items_not_array says what it got, and spots a list written as JSON text', async () => {
    const text = tool('script_like', () => '[1,2,3]');
    const num = tool('count', () => 3);
    const echo = tool('echo', (a) => a);
    const gate = registry(text, num, echo).gate();
    const compose = createComposeTool(gate);
    // A composite reads the text as text, and is told what it holds.
    const composite = new ComposableToolBuilder(gate).build('each', 'Echo each.', { type: 'object' }, {
      steps: [
        { name: 'list', tool: 'script_like', inputMapping: {} },
        { name: 'each', combinator: 'for_each', items: '$steps.list', template: { name: 'one', tool: 'echo', inputMapping: { v: '$item' } } },
      ],
    });
    const fromText = await composite.execute({}, {});
    expect(fromText.details).toMatchObject({ code: 'items_not_array', got: 'a string' });
    expect(fromText.error).toContain('a string ("[1,2,3]"), a string holding a JSON array');
    // compose reads a text result that is JSON as its value, as a script's tools.<name>() does: the list is a list.
    const listed = await compose.execute({ combinator: 'for_each', items: { tool: 'script_like', args: {} }, template: { tool: 'echo', args: { v: '{item}' } } }, {});
    expect(listed).toMatchObject({ success: true, output: [{ v: 1 }, { v: 2 }, { v: 3 }] });
    const fromNumber = await compose.execute({ combinator: 'for_each', items: { tool: 'count', args: {} }, template: { tool: 'echo', args: {} } }, {});
    expect(fromNumber.error).toContain('the items are not an array: they are a number (3)');
  });

  it('every refusal in a composite names its step in the message', async () => {
    const { reg } = setup();
    const compose = createComposeTool(reg.gate({ permissionManager: { isExecutionAllowed: () => ({ isAllowed: false, reason: 'read-only' }) } }));
    const result = await compose.execute({ combinator: 'gather', calls: { who: { tool: 'user', args: {} } } }, {});
    expect(result.error).toBe('Step "tree.calls.who" (user): read-only');
  });
});
