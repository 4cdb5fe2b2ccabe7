import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ComposableToolBuilder,
  createComposeTool,
  createGetObservationTool,
  createObservationStore,
  createRunPipelineTool,
  createScriptTool,
  createStepGate,
  createToolRegistry,
  renderUsageGuide,
  withObservations,
  type ITool,
} from '../../src/index.js';

describe('README quick start', () => {
  it('runs as written', async () => {
    const printed: unknown[] = [];
    const console = { log: (value: unknown) => printed.push(value) };
    // README:start
    const lookup: ITool = {
      id: 'lookup', name: 'lookup', displayName: 'Lookup', description: 'Find a user by id.',
      inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
      hasSideEffects: false, // pure: safe to chain
      execute: async (args) => ({ success: true, output: { name: `user-${args.id}` } }),
    };
    const greet: ITool = {
      id: 'greet', name: 'greet', displayName: 'Greet', description: 'Write a greeting.',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      hasSideEffects: false,
      execute: async (args) => ({ success: true, output: `Hello, ${args.name}!` }),
    };
    const registry = createToolRegistry([lookup, greet]); // by name, with a version for the gate

    const builder = new ComposableToolBuilder(createStepGate({ ...registry.gateOptions }));
    const greetUser = builder.build('greet_user', 'Look a user up and greet them.',
      { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
      { steps: [
        { name: 'user', tool: 'lookup', inputMapping: { id: '$input.id' } },
        { tool: 'greet', inputMapping: { name: '$steps.user.name' } },
      ] });

    const result = await greetUser.execute({ id: 7 }, {});
    console.log(result.output); // "Hello, user-7!"
    // README:end
    expect(result.success).toBe(true);
    expect(printed).toEqual(['Hello, user-7!']);
    expect(greetUser.hasSideEffects).toBe(false);

    // README2:start
    const store = createObservationStore(); // large results: a bounded preview and an obs_ id
    for (const tool of withObservations([lookup, greet], store)) registry.set(tool);
    const gate = createStepGate({ ...registry.gateOptions });
    const options = { sideEffectingTools: [] }; // the host's list, not the model's
    registry.set(createRunPipelineTool(gate, options)); // run_pipeline: steps in order, ${step_1.output}
    registry.set(createComposeTool(gate, options)); // compose: gather, for_each, pipe, try_and_check, scope
    registry.set(createScriptTool(gate, options)); // run_js: a sandboxed script that calls tools
    registry.set(createGetObservationTool(store));
    const guide = renderUsageGuide(registry.tools(), options); // for the system prompt

    const batch = await registry.get('run_pipeline')!.execute({ steps: [
      { id: 'user', tool: 'lookup', args: { id: 7 } },
      { tool: 'greet', args: { name: 'Ann' } },
    ] }, {});
    console.log(batch.output); // 'user: ok\n{"name":"user-7"}\nstep_2: ok\nHello, Ann!'
    // README2:end
    expect(printed[1]).toBe('user: ok\n{"name":"user-7"}\nstep_2: ok\nHello, Ann!');
    expect(guide).toContain('run_pipeline');
    expect(guide).toContain('run_js');
    // Every example in the guide names one of these two tools, for what it takes.
    expect(guide).toContain('(e.g. lookup then greet)');
    expect(guide).toContain('for_each to make one call per item of a list (e.g. one lookup per id)');
    expect(guide).not.toMatch(/per file|read_file|try_and_check|scope/u);
    expect(guide).toContain('Tools that change things must be called directly.');
  });

  it('links examples/ and names only example files that exist', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const readme = readFileSync(`${root}README.md`, 'utf8');
    expect(readme).toContain('[`examples/`](examples/README.md)');
    const examples = readFileSync(`${root}examples/README.md`, 'utf8');
    // Paths in the README are from the repository root; in examples/README.md, from examples/ (or the root).
    const named = [
      ...[...readme.matchAll(/`(examples\/[\w/.-]+)`/gu)].map((m) => m[1]),
      ...[...examples.matchAll(/`([\w.-]+(?:\/[\w.-]+)*\/?)`/gu)].map((m) => m[1]).filter((p) => /\.ts$|\/$/u.test(p)),
    ];
    expect(named.length).toBeGreaterThan(10);
    const missing = named.filter((p) => !existsSync(`${root}examples/${p}`) && !existsSync(`${root}${p}`));
    expect(missing).toEqual([]);
  });

  it('is the snippet the README shows', () => {
    const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const block = /```ts\n([\s\S]*?)```/u.exec(readme)?.[1] ?? '';
    const [importLine, ...body] = block.split('\n');
    expect(importLine).toBe("import { ComposableToolBuilder, createStepGate, createToolRegistry, type ITool } from 'toolweave';");
    const self = readFileSync(fileURLToPath(import.meta.url), 'utf8');
    const copied = self.slice(self.indexOf('// README:start\n') + '// README:start\n'.length, self.indexOf('// README:end'));
    const lines = (text: string) => text.split('\n').map((line) => line.trim()).filter(Boolean);
    expect(lines(copied)).toEqual(lines(body.join('\n')));
    const second = [...readme.matchAll(/```ts\n([\s\S]*?)```/gu)][1]?.[1] ?? '';
    const copied2 = self.slice(self.indexOf('// README2:start\n') + '// README2:start\n'.length, self.indexOf('// README2:end'));
    expect(lines(copied2)).toEqual(lines(second));
  });
});
