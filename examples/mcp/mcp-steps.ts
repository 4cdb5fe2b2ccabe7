/**
 * MCP tools as gated steps: the real filesystem server (started from its installed package over
 * stdio, on a temporary copy of the small project), its tools imported with `mcpTools`, then used
 * in a composite and in a run_js script, every call through the gate. write_file is refused in the
 * script until the host lists it.
 *
 * Run: npx tsx examples/mcp/mcp-steps.ts
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ComposableToolBuilder, createScriptTool, createStepGate, type ToolExecutionResult } from '../../src/index.js';
import { mcpTools } from '../../src/mcp/index.js';
import { isMain, show, withWorkspace } from '../tools/workspace.js';

const FS_SERVER = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url));

/** What the example shows. */
export interface McpStepsResult {
  composite: ToolExecutionResult;
  script: ToolExecutionResult;
  unlisted: ToolExecutionResult;
  listed: ToolExecutionResult;
}

export async function main(print: (line: string) => void = console.log): Promise<McpStepsResult> {
  return withWorkspace(async ({ root }) => {
    const client = new Client({ name: 'toolweave-example', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [FS_SERVER, root], stderr: 'ignore' }));
    try {
      // The host trusts this server's annotations: read tools are pure, write tools side-effecting.
      const tools = await mcpTools(client, { trustAnnotations: true });
      const registry = new Map(tools.map((tool) => [tool.name, tool]));
      const gate = createStepGate({ resolve: (name) => registry.get(name), names: () => registry.keys() });
      print(`imported ${tools.length} tools: ${tools.map((t) => `${t.name}${t.hasSideEffects ? '*' : ''}`).join(', ')} (* side-effecting)`);

      const builder = new ComposableToolBuilder(gate);
      const moduleAndTest = builder.build(
        'module_and_test',
        'Read a module and its test at once.',
        { type: 'object', properties: { file: { type: 'string' }, test: { type: 'string' } }, required: ['file', 'test'] },
        {
          steps: [{ name: 'both', combinator: 'gather', calls: {
            source: { tool: 'read_text_file', inputMapping: { path: '$input.file' } },
            test: { tool: 'read_text_file', inputMapping: { path: '$input.test' } },
          } }],
          output: { source: '$steps.both.source', test: '$steps.both.test' },
        },
      );
      const composite = await moduleAndTest.execute({ file: 'src/app/report.js', test: 'test/cache.test.json' }, {});
      print(`composite module_and_test: ${show(composite.output, 160)}`);

      const script = await createScriptTool(gate).execute({
        intention: 'count the lines of every app module',
        code: `const list = await callTool('list_directory', { path: 'src/app' });
          const files = list.text.split('\\n').filter((l) => l.startsWith('[FILE]')).map((l) => 'src/app/' + l.slice(7));
          const read = await Promise.all(files.map((path) => callTool('read_text_file', { path })));
          return files.map((f, i) => f + ': ' + read[i].text.split('\\n').length).join('\\n');`,
      }, {});
      print(`run_js, one call for ${String(script.output).split('\n').length} files:\n${String(script.output)}`);

      const write = `const r = await callTool('write_file', { path: 'NOTES.md', content: 'cacheKey: check the argument order' }); return r.error ? r.error.code : 'written';`;
      const unlisted = await createScriptTool(gate).execute({ intention: 'save a note', code: write }, {});
      print(`write_file in a script, not listed: ${String(unlisted.output)}`);
      const listed = await createScriptTool(gate, { sideEffectingTools: ['write_file'] }).execute({ intention: 'save a note', code: write }, {});
      print(`write_file in a script, listed: ${String(listed.output)}; effects ${JSON.stringify(listed.effects)}`);
      return { composite, script, unlisted, listed };
    } finally {
      await client.close();
    }
  });
}

if (isMain(import.meta.url)) await main();
