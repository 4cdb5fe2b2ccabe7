import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder, createStepGate, type ITool } from '../../src/index.js';

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
    const registry = new Map([lookup, greet].map((t) => [t.name, t]));

    const builder = new ComposableToolBuilder(createStepGate({ resolve: (name) => registry.get(name) }));
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
  });

  it('is the snippet the README shows', () => {
    const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const block = /```ts\n([\s\S]*?)```/u.exec(readme)?.[1] ?? '';
    const [importLine, ...body] = block.split('\n');
    expect(importLine).toBe("import { ComposableToolBuilder, createStepGate, type ITool } from 'toolweave';");
    const self = readFileSync(fileURLToPath(import.meta.url), 'utf8');
    const copied = self.slice(self.indexOf('// README:start\n') + '// README:start\n'.length, self.indexOf('// README:end'));
    const lines = (text: string) => text.split('\n').map((line) => line.trim()).filter(Boolean);
    expect(lines(copied)).toEqual(lines(body.join('\n')));
  });
});
