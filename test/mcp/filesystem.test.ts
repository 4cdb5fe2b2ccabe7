/**
 * MCP tools as gated steps, over the real filesystem server on a temporary copy of the fixture
 * project: a composite over its read tools, run_js reading several files, write_file refused until
 * the host lists it, and annotations trusted or not.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComposableToolBuilder, createScriptTool, createStepGate, type ITool } from '../../src/index.js';
import { mcpTools, type McpTool } from '../../src/mcp/index.js';
import { connectFilesystem, copyProject, liveProcesses, processesLeft, type ChildClient, type Project } from './helpers.js';

let project: Project;
let fs: ChildClient;
let trusted: McpTool[];
let untrusted: McpTool[];

beforeAll(async () => {
  project = await copyProject();
  fs = await connectFilesystem(project.root);
  trusted = await mcpTools(fs.client, { trustAnnotations: true });
  untrusted = await mcpTools(fs.client);
});

afterAll(async () => {
  expect(liveProcesses(project.root).length).toBe(1);
  await fs.close();
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

const byName = <T extends ITool>(tools: T[]) => new Map(tools.map((t) => [t.name, t]));

describe('mcpTools over the filesystem server', () => {
  it('imports every tool with its schemas as the server gives them', () => {
    const read = byName(trusted).get('read_text_file')!;
    expect(read.inputSchema).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
    expect(read.outputSchema).toMatchObject({ properties: { content: { type: 'string' } } });
    expect(read.id).toBe('mcp:secure-filesystem-server:read_text_file');
    expect(read.annotations).toMatchObject({ readOnlyHint: true });
    expect(trusted.map((t) => t.name)).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'list_directory', 'move_file']));
  });

  it('reads text as text: the server wraps it in structuredContent too, and the output is still the string', async () => {
    const read = byName(trusted).get('read_text_file')!;
    const result = await read.execute({ path: path.join(project.root, 'README.md') }, {});
    expect(result.success).toBe(true);
    expect(result.output).toBe(await readFile(path.join(project.root, 'README.md'), 'utf8'));
  });

  it('trusts annotations only when told: readOnlyHint true is pure, anything else side-effecting; untrusted is undeclared', () => {
    const t = byName(trusted);
    expect(t.get('read_text_file')!.hasSideEffects).toBe(false);
    expect(t.get('write_file')!.hasSideEffects).toBe(true);
    expect(t.get('create_directory')!.hasSideEffects).toBe(true);
    for (const tool of untrusted) expect('hasSideEffects' in tool, tool.name).toBe(false);
    // The annotations travel either way, to be served on.
    expect(byName(untrusted).get('write_file')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('an error the tool reports is tool_error with its text', async () => {
    const list = byName(trusted).get('list_directory')!;
    const result = await list.execute({ path: path.join(project.root, 'no-such-folder') }, {});
    expect(result).toMatchObject({ success: false, details: { code: 'tool_error', server: 'secure-filesystem-server', tool: 'list_directory' } });
    expect(result.error).toContain('ENOENT');
  });

  it('a composite over its read tools runs through the gate', async () => {
    const registry = byName(trusted);
    const builder = new ComposableToolBuilder(createStepGate({ resolve: (n) => registry.get(n) }));
    const review = builder.build(
      'read_module_and_test',
      'Read a module and its test.',
      { type: 'object', properties: { file: { type: 'string' }, test: { type: 'string' } }, required: ['file', 'test'] },
      {
        steps: [
          { name: 'both', combinator: 'gather', calls: {
            source: { tool: 'read_text_file', inputMapping: { path: '$input.file' } },
            test: { tool: 'read_text_file', inputMapping: { path: '$input.test' } },
          } },
        ],
        output: { source: '$steps.both.source', test: '$steps.both.test' },
      },
    );
    expect(review.hasSideEffects).toBe(false);
    const result = await review.execute({ file: path.join(project.root, 'src/app/cache.js'), test: path.join(project.root, 'test/cache.test.json') }, {});
    expect(result.success).toBe(true);
    const output = result.output as { source: string; test: string };
    expect(output.source).toBe(await readFile(path.join(project.root, 'src/app/cache.js'), 'utf8'));
    expect(JSON.parse(output.test)).toMatchObject({ file: expect.any(String) });
  });

  it('run_js reads several files through callTool, one answer back', async () => {
    const registry = byName(trusted);
    const runJs = createScriptTool(createStepGate({ resolve: (n) => registry.get(n) }));
    const root = project.root;
    const result = await runJs.execute({
      intention: 'count lines of the app modules',
      code: `
        const files = ['cache', 'orders', 'profile', 'report'].map((f) => ${JSON.stringify(root)} + '/src/app/' + f + '.js');
        const read = await Promise.all(files.map((path) => callTool('read_text_file', { path })));
        if (read.some((r) => r.error)) return read.map((r) => r.error);
        return read.map((r, i) => files[i].split('/').pop() + ' ' + r.text.split('\\n').length).join('; ');`,
    }, {});
    expect(result.success).toBe(true);
    const expected = await Promise.all(['cache', 'orders', 'profile', 'report'].map(async (f) => `${f}.js ${(await readFile(path.join(root, 'src/app', `${f}.js`), 'utf8')).split('\n').length}`));
    expect(result.output).toBe(expected.join('; '));
  });

  it('write_file is refused in a script unless the host lists it, then runs once listed', async () => {
    const registry = byName(trusted);
    const gate = createStepGate({ resolve: (n) => registry.get(n) });
    const target = path.join(project.root, 'notes.txt');
    const code = `const r = await callTool('write_file', { path: ${JSON.stringify(target)}, content: 'from a script' }); return r.error ? r.error.code : 'written';`;

    const unlisted = await createScriptTool(gate).execute({ intention: 'write a note', code }, {});
    expect(unlisted.output).toBe('step_not_chainable');
    await expect(readFile(target, 'utf8')).rejects.toThrow(/ENOENT/u);

    const listed = await createScriptTool(gate, { sideEffectingTools: ['write_file'] }).execute({ intention: 'write a note', code }, {});
    expect(listed.output).toBe('written');
    expect(listed.effects).toEqual([{ step: 'call 1', tool: 'write_file', ran: true, outcome: 'ran' }]);
    expect(await readFile(target, 'utf8')).toBe('from a script');
  });

  it('untrusted tools are callable directly but never chained, listed or not', async () => {
    const registry = byName(untrusted);
    const gate = createStepGate({ resolve: (n) => registry.get(n) });
    const file = path.join(project.root, 'README.md');
    const direct = await gate.run(registry.get('read_text_file')!, { path: file }, {});
    expect(direct.success).toBe(true);
    const script = createScriptTool(gate, { sideEffectingTools: ['read_text_file'] });
    const chained = await script.execute({ intention: 'read', code: `return (await callTool('read_text_file', { path: ${JSON.stringify(file)} })).error.code;` }, {});
    expect(chained.output).toBe('side_effects_undeclared');
  });

  it('a per-tool override grades a tool the annotations would not', async () => {
    const tools = await mcpTools(fs.client, { trustAnnotations: true, tools: { move_file: { hasSideEffects: true }, list_directory: { hasSideEffects: true } } });
    expect(byName(tools).get('list_directory')!.hasSideEffects).toBe(true);
    const untrustedOverride = await mcpTools(fs.client, { tools: { read_text_file: { hasSideEffects: false } } });
    expect(byName(untrustedOverride).get('read_text_file')!.hasSideEffects).toBe(false);
    expect('hasSideEffects' in byName(untrustedOverride).get('read_file')!).toBe(false);
  });

  it('prefixes names, and still calls the server by the tool’s own name', async () => {
    const tools = await mcpTools(fs.client, { prefix: 'fs', trustAnnotations: true });
    const read = byName(tools).get('fs__read_text_file')!;
    expect(read).toBeDefined();
    expect((await read.execute({ path: path.join(project.root, 'package.json') }, {})).success).toBe(true);
  });
});
