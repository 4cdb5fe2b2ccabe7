import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderUsageGuide, type GuideTool } from '../../src/index.js';
import { createFsTools } from '../../examples/tools/fs-tools.js';

const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });
const pure = (name: string, inputSchema: Record<string, unknown> = object({})): GuideTool => ({ name, hasSideEffects: false, inputSchema });
const BATCHING: GuideTool[] = [{ name: 'run_pipeline' }, { name: 'compose' }, { name: 'run_js' }, { name: 'get_observation' }];

/**
 * Every tool an example names is one of `tools`, and fits what the example says: `A then B` are
 * pure, `one T per x` takes `x` as its one argument, `make a change (T)` is a listed
 * side-effecting tool. Returns the problems found.
 */
function misfits(guide: string, tools: readonly GuideTool[], allowed: readonly string[]): string[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const isPure = (name: string) => byName.get(name)?.hasSideEffects === false && !byName.get(name)?.interactive;
  const problems: string[] = [];
  for (const [, a, b] of guide.matchAll(/e\.g\. (\S+) then (\S+?)\)/gu)) {
    if (!isPure(a) || !isPure(b) || a === b) problems.push(`run_pipeline example: ${a} then ${b}`);
  }
  for (const [, name, argument] of guide.matchAll(/one (\S+) per (\S+?)\)/gu)) {
    const schema = byName.get(name)?.inputSchema as { properties?: Record<string, unknown>; required?: string[] } | undefined;
    const takes = schema?.required?.length ? schema.required : Object.keys(schema?.properties ?? {});
    if (!isPure(name) || takes.length !== 1 || takes[0] !== argument) problems.push(`for_each example: one ${name} per ${argument}`);
  }
  for (const [, name] of guide.matchAll(/make a change \((\S+)\)/gu)) {
    if (!byName.has(name) || !allowed.includes(name)) problems.push(`try_and_check example: ${name}`);
  }
  if (/scope with rollback/u.test(guide) && !allowed.some((n) => byName.has(n))) problems.push('scope offered with no change a batch may make');
  return problems;
}

describe('renderUsageGuide: every line fits the tools it was given', () => {
  it('a for_each example names a tool that takes one argument, per value of that argument', () => {
    const tools = [...BATCHING, pure('run_tests'), pure('search', object({ query: { type: 'string' }, limit: { type: 'number' } }, ['query', 'limit'])), pure('read_file', object({ path: { type: 'string' } }, ['path']))];
    const guide = renderUsageGuide(tools);
    expect(guide).toContain('for_each to make one call per item of a list (e.g. one read_file per path)');
    expect(misfits(guide, tools, [])).toEqual([]);
    // The only required property decides, even beside optional ones; with none required, the only property.
    expect(renderUsageGuide([{ name: 'compose' }, pure('grep', object({ pattern: { type: 'string' }, path: { type: 'string' } }, ['pattern']))])).toContain('one grep per pattern');
    expect(renderUsageGuide([{ name: 'compose' }, pure('stat', object({ file: { type: 'string' } }))])).toContain('one stat per file');
  });

  it('with no tool that takes one single value, for_each is described without an example', () => {
    const guide = renderUsageGuide([
      { name: 'compose' },
      pure('run_tests'),
      pure('sum', object({ numbers: { type: 'array' } }, ['numbers'])),
      pure('search', object({ query: { type: 'string' }, limit: { type: 'number' } }, ['query', 'limit'])),
      { name: 'delete_file', hasSideEffects: true, inputSchema: object({ path: { type: 'string' } }, ['path']) },
      { name: 'ask_user', hasSideEffects: false, interactive: true, inputSchema: object({ question: { type: 'string' } }, ['question']) },
    ]);
    expect(guide).toContain('for_each to make one call per item of a list;');
    expect(guide).not.toContain('e.g.');
    expect(guide).not.toMatch(/per (file|path|question|numbers)/u);
  });

  it('changing things inside a batch is offered only when the host lets a batch call a tool that is given', () => {
    const readFile = pure('read_file', object({ path: { type: 'string' } }, ['path']));
    const writeFile: GuideTool = { name: 'write_file', hasSideEffects: true };
    const none = renderUsageGuide([{ name: 'compose' }, readFile, writeFile]);
    expect(none).not.toMatch(/try_and_check|scope|edit/u);
    expect(none).toContain('Tools that change things must be called directly.');
    // Listed, but not offered: still nothing to change.
    const absent = renderUsageGuide([{ name: 'compose' }, readFile], { sideEffectingTools: ['write_file'] });
    expect(absent).not.toMatch(/try_and_check|scope|write_file/u);
    const listed = renderUsageGuide([{ name: 'compose' }, readFile, writeFile], { sideEffectingTools: ['write_file'] });
    expect(listed).toContain('try_and_check to make a change (write_file) then verify it');
    expect(listed).toContain('scope with rollback for changes that must not be left half-done');
    expect(listed).toContain('Tools that change things and may be batched: write_file.');
    // Nothing pure to verify with: no try_and_check, but a scope can still undo.
    const noCheck = renderUsageGuide([{ name: 'compose' }, writeFile], { sideEffectingTools: ['write_file'] });
    expect(noCheck).not.toContain('try_and_check');
    expect(noCheck).toContain('scope with rollback');
  });

  it('run_pipeline names two different pure tools, or none', () => {
    expect(renderUsageGuide([{ name: 'run_pipeline' }])).not.toContain('e.g.');
    expect(renderUsageGuide([{ name: 'run_pipeline' }, pure('lookup')])).not.toContain('e.g.');
    expect(renderUsageGuide([{ name: 'run_pipeline' }, pure('lookup'), { name: 'send', hasSideEffects: true }, pure('greet')])).toContain('(e.g. lookup then greet)');
    // No tool is made up: there is no read_file here.
    expect(renderUsageGuide([{ name: 'run_pipeline' }, { name: 'compose' }])).not.toContain('read_file');
  });

  it("the examples' filesystem tools, as the token benchmark offers them", () => {
    const tools = [...createFsTools('/nowhere'), ...BATCHING];
    const allowed = ['edit_file', 'write_file'];
    const guide = renderUsageGuide(tools, { sideEffectingTools: allowed });
    expect(guide).toContain('(e.g. list_dir then grep_files)');
    expect(guide).toContain('one list_dir per path');
    expect(guide).toContain('make a change (edit_file)');
    expect(misfits(guide, tools, allowed)).toEqual([]);
  });

  it('for any tools and any host list, no example names a tool that does not fit', () => {
    const schema = fc.record({
      properties: fc.dictionary(fc.constantFrom('path', 'id', 'name', 'items', 'query'), fc.record({ type: fc.constantFrom('string', 'number', 'array', 'object', undefined) }), { maxKeys: 3 }),
      required: fc.subarray(['path', 'id', 'name', 'items', 'query']),
    }, { requiredKeys: ['properties'] });
    const tool = fc.record({
      name: fc.constantFrom('a', 'b', 'c', 'd', 'read_file', 'edit_file'),
      hasSideEffects: fc.constantFrom(true, false, undefined),
      interactive: fc.boolean(),
      inputSchema: fc.option(schema.map((s) => ({ type: 'object', ...s })), { nil: undefined }),
    });
    fc.assert(fc.property(
      fc.uniqueArray(tool, { selector: (t) => t.name, maxLength: 6 }),
      fc.subarray(['a', 'b', 'edit_file', 'read_file']),
      (host, allowed) => {
        const tools = [...BATCHING, ...host] as GuideTool[];
        expect(misfits(renderUsageGuide(tools, { sideEffectingTools: allowed }), tools, allowed)).toEqual([]);
      },
    ), { numRuns: 300 });
  });
});

describe('renderUsageGuide: code-only, when a script finds the tools the model is not offered', () => {
  const hidden: GuideTool[] = [pure('read_file', object({ path: { type: 'string' } }, ['path'])), pure('list_dir'), { name: 'write_file', hasSideEffects: true }];
  const groups = [{ name: 'filesystem', count: 2 }, { name: 'notes', count: 1 }];
  const listed: GuideTool[] = [{ name: 'run_js' }, { name: 'get_observation' }];

  it('says how a script finds and calls them, naming the groups, and that even one call goes through run_js', () => {
    const guide = renderUsageGuide(listed, { sideEffectingTools: ['write_file'], discovery: { tools: hidden, groups } });
    expect(guide).toContain('- 3 more tools (filesystem 2, notes 1) are not listed: in a run_js script, find them with searchTools(query) and describeTools(names) and call them with tools.<name>(args)');
    expect(guide).toContain('Unlisted tools are called only from run_js, a single call too');
    // The side-effecting tool a script may call is named, though the model is not offered it.
    expect(guide).toContain('Tools that change things a script may call: write_file.');
    expect(guide).not.toContain('must be called directly');
  });

  it('says when a script may change nothing', () => {
    const guide = renderUsageGuide(listed, { discovery: { tools: hidden, groups: [] } });
    expect(guide).toContain('- 3 more tools are not listed');
    expect(guide).toContain('A script may call only tools that change nothing.');
  });

  it('is the usual guide when every tool found is listed anyway, or there is no run_js to find them from', () => {
    const all = [...listed, ...hidden];
    expect(renderUsageGuide(all, { discovery: { tools: hidden, groups } })).toBe(renderUsageGuide(all));
    expect(renderUsageGuide([{ name: 'get_observation' }], { discovery: { tools: hidden, groups } })).toBe(renderUsageGuide([{ name: 'get_observation' }]));
  });
});

describe('renderUsageGuide: code-only over a large catalog', () => {
  it('names at most eight of the tools that change things, and counts the rest: the guide is sent every turn', () => {
    const many: GuideTool[] = Array.from({ length: 30 }, (_, i) => ({ name: `change_${i}`, hasSideEffects: true }));
    const guide = renderUsageGuide([{ name: 'run_js' }], { sideEffectingTools: many.map((t) => t.name), discovery: { tools: many } });
    expect(guide).toContain('Tools that change things a script may call: change_0, change_1, change_2, change_3, change_4, change_5, change_6, change_7 and 22 more.');
  });
});
