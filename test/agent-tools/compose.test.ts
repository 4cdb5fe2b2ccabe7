import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { renderUsageGuide } from '../../src/agent-tools/usage-guide.js';
import { compileSchema } from '../../src/spec/ajv.js';
import { registry, tool } from '../helpers/tools.js';

function setup(sideEffectingTools: string[] = []) {
  const log: string[] = [];
  const tools = {
    read: tool('file_read', (a) => `text of ${String(a.path)}`),
    glob: tool('file_glob', () => ['src/a.py', 'src/b.py']),
    search: tool('file_search', (a) => `${String(a.path)}: ${String(a.pattern)} x1`),
    readBatch: tool('file_read_batch', (a) => (a.paths as string[]).map((p) => `text of ${p}`)),
    tests: tool('run_tests', () => ({ passed: log.includes('edit') })),
    edit: tool('file_edit_batch', () => (log.push('edit'), 'edited'), { hasSideEffects: true }),
  };
  const reg = registry(...Object.values(tools));
  const compose = createComposeTool(reg.gate(), { sideEffectingTools });
  reg.map.set('compose', compose);
  return { tools, compose, log };
}

describe('compose: the shapes as written', () => {
  it('gather', async () => {
    const { compose } = setup();
    const result = await compose.execute({ combinator: 'gather', calls: { source: { tool: 'file_read', args: { path: 'src/t.py' } }, tests: { tool: 'file_read', args: { path: 'tests/t.py' } } } }, {});
    expect(result.output).toEqual({ source: 'text of src/t.py', tests: 'text of tests/t.py' });
  });
  it('for_each with {item} holes', async () => {
    const { compose } = setup();
    const result = await compose.execute({ combinator: 'for_each', items: { tool: 'file_glob', args: { pattern: 'src/**/*.py' } }, template: { tool: 'file_search', args: { pattern: 'getattr', path: '{item}' } } }, {});
    expect(result.output).toEqual(['src/a.py: getattr x1', 'src/b.py: getattr x1']);
  });
  it('pipe with a whole-string {result} keeping the list', async () => {
    const { compose } = setup();
    const result = await compose.execute({ combinator: 'pipe', stages: [{ tool: 'file_glob', args: { pattern: '*' } }, { tool: 'file_read_batch', args: { paths: '{result}' } }] }, {});
    expect(result.output).toEqual(['text of src/a.py', 'text of src/b.py']);
  });
  it('holes with a path: a whole-string one keeps the part as it is, one inside text reads it as text; only own fields', async () => {
    const { compose } = setup();
    const pipe = (args: Record<string, unknown>) => compose.execute({ combinator: 'pipe', stages: [{ tool: 'file_glob', args: { pattern: '*' } }, { tool: 'file_read_batch', args }] }, {});
    expect((await pipe({ paths: ['{result.1}', '{result[0]}'] })).output).toEqual(['text of src/b.py', 'text of src/a.py']);
    expect((await pipe({ paths: ['first {result.0}, length {result.length}'] })).output).toEqual(['text of first src/a.py, length 2']);
    // Not an own field, a missing one, an unknown hole, a malformed path: nothing read (text stays text).
    expect((await pipe({ paths: ['{result.constructor}{result.__proto__}{result.9}'] })).output).toEqual(['text of ']);
    expect((await pipe({ paths: ['{other.0}', '{result.}', '{result'] })).output).toEqual(['text of {other.0}', 'text of {result.}', 'text of {result']);
  });
  it('try_and_check, scope and annotate nested', async () => {
    const { compose } = setup(['file_edit_batch']);
    const result = await compose.execute({
      combinator: 'annotate',
      intent: 'Fix the quoting bug',
      hypothesis: 'quotes kept in value',
      do: { combinator: 'scope', on_failure: 'rollback', do: { combinator: 'try_and_check', do: { tool: 'file_edit_batch', args: { edits: [] } }, check: { tool: 'run_tests', args: {} } } },
    }, {});
    expect(result.success).toBe(true);
    expect(result.output).toEqual({ do: 'edited', check: { passed: true } });
    expect(result.details).toMatchObject({ annotations: [{ intent: 'Fix the quoting bug' }] });
    expect(result.effects).toEqual([{ step: 'tree.do.do.do', tool: 'file_edit_batch', ran: true, outcome: 'ran' }]);
  });
  it('model text is never a reference: $input and ${$...} stay literal', async () => {
    const { compose } = setup();
    const result = await compose.execute({ tool: 'file_read', args: { path: '$input.secret ${$prev}' } }, {});
    expect(result.output).toBe('text of $input.secret ${$prev}');
  });
});

describe('compose: bad trees', () => {
  it('lists every problem before anything runs', async () => {
    const { compose, tools } = setup();
    const result = await compose.execute({ combinator: 'gather', calls: { a: { tool: 'file_read', args: { path: 'x' } }, b: { combinator: 'teleport' }, c: { combinator: 'pipe', stages: [] }, d: { tool: 'file_read', bogus: 1 } } }, {});
    expect(result.details?.code).toBe('spec_invalid');
    const errors = result.details?.errors as string[];
    expect(errors.length).toBeGreaterThanOrEqual(3);
    expect(errors.join('\n')).toMatch(/teleport/);
    expect(errors.join('\n')).toMatch(/stages/);
    expect(errors.join('\n')).toMatch(/bogus/);
    expect(tools.read.calls).toHaveLength(0);
  });
  it('refuses an unlisted side-effecting tool anywhere in the tree before any call', async () => {
    const { compose, tools } = setup();
    const result = await compose.execute({ combinator: 'pipe', stages: [{ tool: 'file_read', args: { path: 'a' } }, { tool: 'file_edit_batch' }] }, {});
    expect(result.details).toMatchObject({ code: 'step_not_chainable', step: 'tree.stages[1]' });
    expect(tools.read.calls).toHaveLength(0);
  });
  it('refuses itself, a missing tool, a tree deeper than the limit, and a huge for_each', async () => {
    const { compose } = setup();
    expect((await compose.execute({ tool: 'compose', args: {} }, {})).details?.code).toBe('pipeline_self_call');
    expect((await compose.execute({ tool: 'ghost' }, {})).details?.code).toBe('step_missing');
    let deep: object = { tool: 'file_read' };
    for (let i = 0; i < 20; i++) deep = { combinator: 'annotate', intent: 'x', do: deep };
    const tooDeep = await compose.execute(deep as never, {});
    expect(tooDeep.details?.code).toBe('spec_invalid');
    const huge = tool('huge', () => Array.from({ length: 100_000 }, (_, i) => i));
    const noop = tool('noop', () => 1);
    const c3 = createComposeTool(registry(huge, noop).gate());
    expect((await c3.execute({ combinator: 'for_each', items: { tool: 'huge' }, template: { tool: 'noop' } }, {})).details?.code).toBe('too_many_items');
    expect(noop.calls).toHaveLength(0);
  });
});

describe('compose: its definition', () => {
  it('publishes a schema that accepts the documented shapes and is small', () => {
    const { compose } = setup();
    const check = compileSchema(compose.inputSchema);
    expect(check({ combinator: 'gather', calls: { a: { tool: 'x', args: {} } } })).toBeNull();
    expect(check({ combinator: 'scope', do: { combinator: 'pipe', stages: [{ tool: 'x' }] }, on_failure: 'rollback' })).toBeNull();
    expect(check({ combinator: 'nope' })).not.toBeNull();
    // One object, no union anywhere: the shape LangChain's and the AI SDK's MCP clients take as it is.
    expect(JSON.stringify(compose.inputSchema)).not.toMatch(/anyOf|oneOf|allOf/u);
    // Measured 284 (the root union it replaced: 449).
    const tokens = encode(JSON.stringify({ name: compose.name, description: compose.description, inputSchema: compose.inputSchema })).length;
    // 290: a hole's path (`{result.a.0}`) costs a few tokens here and saves the model a call to pick a field.
    // 295: saying that for_each's items is a node, not a literal list, saves the model a refused call.
    expect(tokens).toBeLessThanOrEqual(295);
  });

  it("says which fields go with each kind, from the definitions each node is checked against", () => {
    const { compose } = setup();
    for (const kind of ['gather {calls}', 'for_each {items,template,concurrency?}', 'pipe {stages}', 'try_and_check {do,check,attempts?}', 'scope {do,on_failure?}', 'annotate {intent,hypothesis?,do}']) {
      expect(compose.description).toContain(kind);
    }
    expect(compose.description).toContain('leaf {tool,args?}');
    // A literal list is refused (items is a node whose output is the list): the description says so.
    expect(compose.description).toContain('for_each {items,template,concurrency?}: items a node (not a literal list)');
  });

  it('checks each node against its own kind, however loose the one-object schema is', async () => {
    const { compose, tools } = setup();
    const check = compileSchema(compose.inputSchema);
    // The published schema lets a node mix kinds' fields or leave one out; the tool does not.
    const trees = [
      { combinator: 'gather', calls: { a: { tool: 'file_read', args: { path: 'a' } } }, stages: [{ tool: 'file_read' }] },
      { combinator: 'try_and_check', do: { tool: 'file_read', args: { path: 'a' } } },
      { tool: 'file_read', args: { path: 'a' }, intent: 'read' },
      { combinator: 'pipe', stages: [] },
      { combinator: 'scope', do: { tool: 'file_read', argz: { path: 'a' } } },
    ];
    for (const tree of trees) expect(check(tree)).toBeNull();
    const answers = await Promise.all(trees.map((tree) => compose.execute(tree, {})));
    expect(answers.map((a) => a.details?.code)).toEqual(trees.map(() => 'spec_invalid'));
    expect(answers.map((a) => a.error)).toEqual([
      'Invalid tree: tree has an unknown field "stages"',
      expect.stringMatching(/tree must have required property 'check'/u),
      'Invalid tree: tree has an unknown field "intent"',
      expect.stringMatching(/tree\.stages must NOT have fewer than 1 items/u),
      'Invalid tree: tree.do has an unknown field "argz"',
    ]);
    expect(tools.read.calls).toHaveLength(0);
  });
});

describe('renderUsageGuide', () => {
  it('describes only the batching tools registered, with the host tools as examples', () => {
    const guide = renderUsageGuide(
      [{ name: 'run_pipeline' }, { name: 'read_file', hasSideEffects: false }, { name: 'grep_files', hasSideEffects: false }, { name: 'write_file', hasSideEffects: true }],
      { sideEffectingTools: ['write_file'] },
    );
    expect(guide).toContain('run_pipeline');
    expect(guide).not.toContain('compose:');
    expect(guide).toContain('read_file then grep_files');
    expect(guide).toContain('may be batched: write_file');
    expect(guide).toMatch(/Do not batch/);
    expect(renderUsageGuide([{ name: 'read_file' }])).toBe('');
    const all = renderUsageGuide([{ name: 'compose' }, { name: 'run_js' }, { name: 'get_observation' }]);
    expect(all).toContain('for_each');
    expect(all).toContain('run_js');
    expect(all).toContain('obs_');
    expect(all).toContain('must be called directly');
  });
});
