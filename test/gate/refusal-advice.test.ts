/**
 * A refusal says what its reader can change. A library user changes the options, and the default
 * words name them (`sideEffectingTools`, `hasSideEffects`); a host with settings of its own gives
 * the gate its words (`advice`), and every door, the build and validate use them.
 */
import { describe, expect, it } from 'vitest';
import { createComposeTool } from '../../src/agent-tools/compose.js';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { ComposableToolBuilder } from '../../src/builder.js';
import { callByName } from '../../src/gate/call.js';
import type { RefusalAdvice } from '../../src/gate/host-hooks.js';
import { SpecError } from '../../src/index.js';
import type { ToolExecutionResult } from '../../src/tool.js';
import { registry, tool } from '../helpers/tools.js';

const HOST_ADVICE: RefusalAdvice = {
  chain: (name) => `start the host with --chain ${name}`,
  declare: (name) => `set ${name}.pure in host.toml`,
  missing: (name) => `The plugin that may hold "${name}" is not loaded.`,
};

function setup(advice?: RefusalAdvice) {
  const reg = registry(
    tool('read', () => 'text'),
    tool('write_file', () => 'written', { hasSideEffects: true }),
    tool('vague', () => 'ran', {}),
  );
  const gate = reg.gate(advice ? { advice } : {});
  return { reg, gate };
}

/** The message of each refusal a script's calls got, in order. */
async function scriptRefusals(advice?: RefusalAdvice): Promise<string[]> {
  const { gate } = setup(advice);
  const runJs = createScriptTool(gate);
  const result = await runJs.execute(
    {
      code: `const out = [];
        for (const name of ['write_file', 'vague', 'wirte_fiel']) out.push((await callTool(name, {})).error?.message);
        return out;`,
    },
    {},
  );
  expect(result.success).toBe(true);
  return JSON.parse(String(result.output)) as string[];
}

describe('by default, a refusal names the options a library user changes', () => {
  it('run_js: sideEffectingTools for a side-effecting tool, hasSideEffects for an undeclared one', async () => {
    const [chain, declare, missing] = await scriptRefusals();
    expect(chain).toContain('call it directly, or list "write_file" in sideEffectingTools (builder.bind({ sideEffectingTools }) for a composite; the sideEffectingTools option of createRunPipelineTool, createComposeTool or createScriptTool).');
    expect(declare).toContain('call it directly, or declare hasSideEffects on the tool');
    expect(missing).toBe('No tool named "wirte_fiel" is registered; did you mean write_file?');
  });

  it('build: builder.bind({ sideEffectingTools })', () => {
    const { gate } = setup();
    const builder = new ComposableToolBuilder(gate);
    const build = () => builder.build('save', 'Save.', { type: 'object' }, { steps: [{ name: 'save', tool: 'write_file', inputMapping: {} }] });
    expect(build).toThrow(SpecError);
    expect(build).toThrow('list it with builder.bind({ sideEffectingTools: ["write_file"] }) before build, or leave the step out');
  });
});

describe("with the gate's advice, every refusal gives the host's words", () => {
  it('run_js: each refusal, in the words of the host', async () => {
    const [chain, declare, missing] = await scriptRefusals(HOST_ADVICE);
    expect(chain).toBe('Tool "write_file" has side effects and is not listed as one that may be chained, so it cannot run here: call it directly, or start the host with --chain write_file.');
    expect(declare).toBe('Tool "vague" does not declare whether it has side effects, so it is never chained: call it directly, or set vague.pure in host.toml.');
    expect(missing).toBe('No tool named "wirte_fiel" is registered; did you mean write_file? The plugin that may hold "wirte_fiel" is not loaded.');
    expect(chain).not.toContain('sideEffectingTools');
  });

  it('run_pipeline, compose, a composite, callByName, build and validate', async () => {
    const { gate } = setup(HOST_ADVICE);
    const words = 'start the host with --chain write_file';
    const messageOf = (result: ToolExecutionResult) => String(result.error);

    const pipeline = createRunPipelineTool(gate);
    expect(messageOf(await pipeline.execute({ steps: [{ tool: 'read', args: {} }, { tool: 'write_file', args: {} }] }, {}))).toContain(words);
    const compose = createComposeTool(gate);
    expect(messageOf(await compose.execute({ combinator: 'gather', calls: { a: { tool: 'write_file', args: {} } } }, {}))).toContain(words);
    expect(messageOf((await callByName(gate, 'write_file', {}, {})).result)).toContain(words);

    const builder = new ComposableToolBuilder(gate);
    const spec = { steps: [{ name: 'save', tool: 'write_file', inputMapping: {} }] };
    expect(() => builder.build('save', 'Save.', { type: 'object' }, spec)).toThrow(`${words}, or leave the step out`);
    expect(builder.validate(spec).errors?.join('\n')).toContain(words);
    expect(builder.validate({ steps: [{ tool: 'nope', inputMapping: {} }] }).errors?.join('\n')).toContain('The plugin that may hold "nope" is not loaded.');

    // Built while the tool was pure, then replaced by a side-effecting one: refused at run time.
    const { reg, gate: later } = setup(HOST_ADVICE);
    reg.add(tool('write_file', () => 'written'));
    const composite = new ComposableToolBuilder(later).build('save', 'Save.', { type: 'object' }, spec);
    reg.add(tool('write_file', () => 'written', { hasSideEffects: true }));
    expect(messageOf(await composite.execute({}, {}))).toContain(words);
  });

  it('advice that throws or answers no text leaves the default words, and the refusal is still made', async () => {
    const broken: RefusalAdvice = {
      chain: () => {
        throw new Error('advice broke');
      },
      declare: () => 42 as unknown as string,
      missing: () => '',
    };
    const [chain, declare, missing] = await scriptRefusals(broken);
    expect(chain).toContain('list "write_file" in sideEffectingTools');
    expect(declare).toContain('declare hasSideEffects on the tool');
    expect(missing).toBe('No tool named "wirte_fiel" is registered; did you mean write_file?');
    // Empty words are no words: the default ones are given, not an empty sentence.
    const [emptyChain, emptyDeclare] = await scriptRefusals({ chain: () => '', declare: () => '' });
    expect(emptyChain).toContain('call it directly, or list "write_file" in sideEffectingTools');
    expect(emptyDeclare).toContain('call it directly, or declare hasSideEffects on the tool');
  });
});
