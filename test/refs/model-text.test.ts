/**
 * Text a model sends (the compose and run_pipeline tools' arguments) is compiled with references
 * off: only the holes of its site are filled. A `$`-expression or a `${$...}` part inside a string
 * that also holds a hole is text, never read from the scope.
 */
import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { compileMapping } from '../../src/refs/compile.js';
import { registry, tool } from '../helpers/tools.js';
import { scope, site } from './helpers.js';

describe('model text with holes', () => {
  it('compile: a ${$...} part and a $-expression beside a hole stay as written', () => {
    const c = compileMapping(
      { a: 'literal ${$item} {item}', b: '{item} ${ $input.secret } $input.secret', c: '{result} ${$prev}', d: '$$input {index}' },
      site({ references: false, inForEach: true, inPipeStage: true }),
    );
    expect(c.errors).toEqual([]);
    expect(c.warnings).toEqual([]);
    const out = c.accessor(scope({ input: { secret: 'S' }, prev: 'P', item: 'I', index: 4 }));
    expect(out).toEqual({ a: 'literal ${$item} I', b: 'I ${ $input.secret } $input.secret', c: 'P ${$prev}', d: '$$input 4' });
  });

  it('compose for_each: a template argument holding {item} and ${$item} fills only the hole', async () => {
    const list = tool('list', () => ['a.txt', 'b.txt']);
    const echo = tool('echo', (a) => a.path);
    const reg = registry(list, echo);
    const compose = createComposeTool(reg.gate());
    const result = await compose.execute(
      { combinator: 'for_each', items: { tool: 'list', args: {} }, template: { tool: 'echo', args: { path: 'literal ${$item} {item} $item' } } },
      { sessionData: {} },
    );
    expect(result.success).toBe(true);
    expect(echo.calls).toEqual([{ path: 'literal ${$item} a.txt $item' }, { path: 'literal ${$item} b.txt $item' }]);
  });

  it('compose pipe: a stage argument holding {result} and ${$prev} fills only the hole', async () => {
    const first = tool('first', () => 'one');
    const echo = tool('echo', (a) => a.text);
    const reg = registry(first, echo);
    const compose = createComposeTool(reg.gate());
    const result = await compose.execute({ combinator: 'pipe', stages: [{ tool: 'first', args: {} }, { tool: 'echo', args: { text: '{result} then ${$prev}' } }] }, {});
    expect(result.output).toBe('one then ${$prev}');
  });

  it('run_pipeline: an argument holding ${step_1.output} and ${$prev} fills only the step reference', async () => {
    const first = tool('first', () => 'one');
    const echo = tool('echo', (a) => a);
    const reg = registry(first, echo);
    const pipeline = createRunPipelineTool(reg.gate());
    const result = await pipeline.execute({ steps: [{ tool: 'first', args: {} }, { tool: 'echo', args: { text: '${step_1.output} and ${$prev} and ${$steps[0]}' } }] }, {});
    expect(result.success).toBe(true);
    expect(echo.calls).toEqual([{ text: 'one and ${$prev} and ${$steps[0]}' }]);
  });
});
