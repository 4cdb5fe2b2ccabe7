/**
 * A tool named `then` cannot be reached as `tools.then` (the `tools` object is never a promise,
 * so `then` reads as nothing there): it is declared only as what can be called, with the way to
 * reach it, `callTool("then", args)`, and that way works.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createScriptDiscovery, createScriptTool, createStepGate, createToolRegistry, describeTools, renderDeclarations } from '../../src/index.js';
import { tool } from '../helpers/tools.js';

const schema = { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] };

function host() {
  const registry = createToolRegistry([
    tool('then', (args) => `after ${String(args.word)}`, { hasSideEffects: false, description: 'What comes after a word.', inputSchema: schema }),
    tool('read_file', () => 'text', { hasSideEffects: false, description: 'Read a file.', inputSchema: schema }),
  ]);
  const gate = createStepGate({ ...registry.gateOptions });
  return { registry, gate };
}

/** TypeScript's complaints about `text`, compiled as a file of its own. */
function complaints(text: string): string[] {
  const fileName = 'check.ts';
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [] };
  const compilerHost = ts.createCompilerHost(options);
  const read = compilerHost.getSourceFile.bind(compilerHost);
  compilerHost.getSourceFile = (name, language, ...rest) => (name === fileName ? ts.createSourceFile(name, text, language) : read(name, language, ...rest));
  return ts.getPreEmitDiagnostics(ts.createProgram([fileName], options, compilerHost)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('a tool named then', () => {
  it('is not declared as tools.then; the declarations say to call it with callTool("then", args)', () => {
    const { gate } = host();
    const text = createScriptDiscovery(gate, { codeOnly: true }).description();
    expect(text).toContain('read_file(args: { word: string }): Promise<unknown>;');
    expect(text).toContain('callTool("then", args)');
    // The declarations compile, and what they declare is what a script can call.
    const declarations = text.slice(text.indexOf('declare const tools'));
    const said = complaints(`${declarations}\nexport async function uses(): Promise<void> {\n  await tools.read_file({ word: 'a' });\n  await tools.then({ word: 'a' });\n}\n`);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/Property 'then' does not exist/u);
  }, 60_000);

  it('renderDeclarations and describeTools give the same advice', () => {
    const { registry } = host();
    const all = renderDeclarations(registry.tools());
    expect(all.split('\n').filter((line) => /^\s*then\(/u.test(line))).toEqual([]);
    expect(all).toContain('callTool("then", args)');
    const described = describeTools(registry.tools(), ['then']).tools[0];
    expect(described.declaration).not.toMatch(/^then\(/u);
    expect(described.declaration).toContain('callTool("then", args)');
    expect(described.declaration).toContain('word: string');
  });

  it('is reached from a script as the declarations say', async () => {
    const { gate } = host();
    const runJs = createScriptTool(gate);
    const result = await runJs.execute({ code: "const r = await callTool('then', { word: 'dusk' }); return [typeof tools.then, r.text, r.error];" }, {});
    expect(result.success).toBe(true);
    expect(JSON.parse(String(result.output))).toEqual(['undefined', 'after dusk', null]);
  });
});
