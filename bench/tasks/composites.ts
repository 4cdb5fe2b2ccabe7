/**
 * The host-built composites of the round-trip benchmark: built once, at configuration time,
 * with ComposableToolBuilder, and offered to the model beside the base tools.
 *
 * - count_and_multiply: list_dir -> grep_files (count) -> read_file -> calculator;
 * - edit_and_test: gather(lists, test run, reads), then try_and_check(edits, test run), then
 *   write the note. edit_file and write_file are listed as side-effecting tools it may chain.
 */
import { ComposableToolBuilder, createStepGate, type ITool } from '../../dist/index.js';
import { SIDE_EFFECTING_TOOLS } from './ways.js';

/** Both composites over `base`, through one gate. */
export function buildComposites(base: readonly ITool[]): ITool[] {
  const byName = new Map(base.map((t) => [t.name, t]));
  const builder = new ComposableToolBuilder(createStepGate({ resolve: (name) => byName.get(name) }), { strictMode: true });
  builder.bind({ sideEffectingTools: SIDE_EFFECTING_TOOLS });

  const countAndMultiply = builder.build(
    'count_and_multiply',
    'List a folder, count the lines matching a regular expression in its files, read a number from a file, and multiply the count by it.',
    {
      type: 'object',
      properties: { dir: { type: 'string' }, pattern: { type: 'string' }, factor_file: { type: 'string' } },
      required: ['dir', 'pattern', 'factor_file'],
      additionalProperties: false,
    },
    {
      steps: [
        { name: 'list', tool: 'list_dir', inputMapping: { path: '$input.dir' } },
        { name: 'count', tool: 'grep_files', inputMapping: { pattern: '$input.pattern', path: '$input.dir', count: true } },
        { name: 'factor', tool: 'read_file', inputMapping: { path: '$input.factor_file' } },
        { name: 'product', tool: 'calculator', inputMapping: { expression: '${$steps.count} * ${$steps.factor}' } },
      ],
      output: { entries: '$steps.list', count: '$steps.count', factor: '$steps.factor', product: '$steps.product' },
    },
  );

  const editAndTest = builder.build(
    'edit_and_test',
    'List folders, run the tests and read files (at once); then apply the edits in order and run the tests, failing if they fail; then write the note.',
    {
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'string' } },
        read: { type: 'array', items: { type: 'string' } },
        edits: {
          type: 'array',
          items: {
            type: 'object',
            properties: { path: { type: 'string' }, find: { type: 'string' }, replace: { type: 'string' } },
            required: ['path', 'find', 'replace'],
            additionalProperties: false,
          },
        },
        note: {
          type: 'object',
          properties: { path: { type: 'string' }, content: { type: 'string' } },
          required: ['path', 'content'],
          additionalProperties: false,
        },
      },
      required: ['list', 'read', 'edits', 'note'],
      additionalProperties: false,
    },
    {
      steps: [
        {
          name: 'look',
          combinator: 'gather',
          calls: {
            lists: { combinator: 'for_each', items: '$input.list', template: { tool: 'list_dir', inputMapping: { path: '$item' } } },
            tests: { tool: 'run_tests', inputMapping: {} },
            reads: { combinator: 'for_each', items: '$input.read', template: { tool: 'read_file', inputMapping: { path: '$item' } } },
          },
        },
        {
          name: 'fix',
          combinator: 'try_and_check',
          do: { combinator: 'for_each', items: '$input.edits', concurrency: 1, template: { tool: 'edit_file', inputMapping: '$item' } },
          check: { tool: 'run_tests', inputMapping: {} },
        },
        { name: 'note', tool: 'write_file', inputMapping: '$input.note' },
      ],
      output: { before: '$steps.look', edits: '$steps.fix.do', tests: '$steps.fix.check', note: '$steps.note' },
    },
  );
  return [countAndMultiply, editAndTest];
}
