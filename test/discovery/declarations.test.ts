import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { renderDeclaration, renderDeclarations, type DeclaredTool } from '../../src/index.js';
import { markUpstream } from '../../src/mcp/upstream-mark.js';
import { servedCatalog } from '../../bench/catalog/snapshot.js';

/** TypeScript's complaints about `text`, compiled as a file of its own (strict, no emit). */
function complaints(text: string): string[] {
  const fileName = 'check.ts';
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [] };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => (name === fileName ? ts.createSourceFile(name, text, language) : read(name, language, ...rest));
  const program = ts.createProgram([fileName], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const readFile: DeclaredTool = {
  name: 'read_text_file',
  description: 'Read a file as text.',
  inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'Where the file is' }, tail: { type: 'number' } }, required: ['path'] },
  outputSchema: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] },
};

describe('renderDeclaration', () => {
  it('is one method: the description as a doc comment, the arguments from inputSchema, the return from outputSchema', () => {
    expect(renderDeclaration(readFile)).toBe(
      ['/** Read a file as text. */', 'read_text_file(args: {', '  /** Where the file is */', '  path: string;', '  tail?: number;', '}): Promise<{ content: string }>;'].join('\n'),
    );
  });

  it('leaves the description out when asked, returns unknown without an outputSchema, and makes args optional when none is required', () => {
    const list: DeclaredTool = { name: 'list_pages', description: 'List pages.', inputSchema: { type: 'object', properties: { limit: { type: 'integer' } } } };
    expect(renderDeclaration(list, { description: false })).toBe('list_pages(args?: { limit?: number }): Promise<unknown>;');
    expect(renderDeclaration({ name: 'ping', description: '', inputSchema: { type: 'object', properties: {} } })).toBe('ping(args?: {}): Promise<unknown>;');
  });

  it('quotes a name that is not an identifier, so it reads as tools["API-get-user"]', () => {
    expect(renderDeclaration({ name: 'API-get-user', description: 'Get a user', inputSchema: { type: 'object', properties: { user_id: { type: 'string' } }, required: ['user_id'] } })).toBe(
      '/** Get a user */\n"API-get-user"(args: { user_id: string }): Promise<unknown>;',
    );
  });

  it('an MCP tool whose output schema only wraps its text returns a string: that is what a caller gets', () => {
    const imported = markUpstream({ ...readFile, id: 'mcp:fs:read_text_file', displayName: 'read', execute: async () => ({ success: true }) }, { textResults: true });
    expect(renderDeclaration(imported, { description: false })).toMatch(/\): Promise<string>;$/u);
    // A wrapper's copy (observations) carries the mark along.
    expect(renderDeclaration({ ...imported }, { description: false })).toMatch(/\): Promise<string>;$/u);
  });

  it('writes a description of several lines as a block comment, blank lines collapsed, never closed early', () => {
    const tool = { ...readFile, description: 'Notion | Create a page\n\n\nError Responses:\n400: Bad */ request\n' };
    expect(renderDeclaration(tool).split('\n').slice(0, 6)).toEqual(['/**', ' * Notion | Create a page', ' *', ' * Error Responses:', ' * 400: Bad *\\/ request', ' */']);
  });
});

describe('renderDeclarations over the nine-server catalog', () => {
  const catalog = servedCatalog();
  const text = renderDeclarations(catalog);

  it('declares every tool once, as a member of tools', () => {
    expect(catalog).toHaveLength(160);
    expect(text.startsWith('declare const tools: {\n')).toBe(true);
    for (const tool of catalog) {
      const key = /^[A-Za-z_$][\w$]*$/u.test(tool.name) ? tool.name : JSON.stringify(tool.name);
      expect(text.split('\n').filter((line) => line.startsWith(`  ${key}(args`))).toHaveLength(1);
    }
  });

  it('is TypeScript that compiles, and calls that break a schema do not', () => {
    // One program, to pay for the compiler once: the right calls compile, each wrong one is named.
    const program = `${text}
export async function uses(): Promise<void> {
  const file: { content: string } = await tools.read_text_file({ path: 'a.txt', tail: 3 });
  await tools["API-post-search"]({ query: 'roadmap' });
  await tools.github__create_issue({ owner: 'o', repo: 'r', title: 't' });
  void file;
}
export async function wrong(): Promise<void> {
  await tools.read_text_file({ tail: 3 });
  await tools.github__create_issue({ owner: 'o', repo: 'r', title: 7 });
}`;
    const said = complaints(program);
    expect(said).toHaveLength(2);
    expect(said[0]).toMatch(/Property 'path' is missing/u);
    expect(said[1]).toMatch(/Type 'number' is not assignable to type 'string'/u);
  }, 60_000);

  it('keeps the renderer within its budget: the whole catalog well under 50 ms', () => {
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const started = performance.now();
      renderDeclarations(catalog);
      times.push(performance.now() - started);
    }
    // The fastest run: the machine's other load only ever adds to it.
    expect(Math.min(...times)).toBeLessThan(50);
  });
});
