import { describe, expect, it } from 'vitest';
import { createToolCatalog, createToolRegistry, describeTools, groupOfTool, groupsOf, searchTools, type ITool } from '../../src/index.js';
import { servedCatalog } from '../../bench/catalog/snapshot.js';

const tool = (name: string, description: string, extra: Partial<ITool> = {}): ITool => ({
  id: name,
  name,
  displayName: name,
  description,
  inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'Where' } }, required: ['path'] },
  execute: async () => ({ success: true, output: name }),
  ...extra,
});

describe('searchTools and describeTools over a tool list', () => {
  const catalog = servedCatalog();

  it('searchTools gives the best matches with their description and declaration', () => {
    const found = searchTools(catalog, 'post a message to a slack channel', 3);
    expect(found).toHaveLength(3);
    expect(found[0]).toEqual({
      name: 'slack_post_message',
      description: 'Post a new message to a Slack channel',
      declaration: 'slack_post_message(args: {\n  /** The ID of the channel to post to */\n  channel_id: string;\n  /** The message text to post */\n  text: string;\n}): Promise<unknown>;',
    });
    // The description is beside the declaration, not repeated in it.
    expect(found.every((f) => !f.declaration.includes(f.description) || f.description === '')).toBe(true);
    expect(searchTools(catalog, 'xyzzy plugh')).toEqual([]);
  });

  it('describeTools gives the named tools in the order asked, each once, and reports the unknown with what is near', () => {
    const described = describeTools(catalog, ['take_screenshot', 'API-get-self', 'take_screenshot', 'raed_graph', 'create_issue']);
    expect(described.tools.map((t) => t.name)).toEqual(['take_screenshot', 'API-get-self']);
    expect(described.tools[1].declaration).toBe('"API-get-self"(args?: {}): Promise<unknown>;');
    expect(described.unknown).toEqual([
      // A typo: the name it was meant to be comes first.
      { name: 'raed_graph', didYouMean: expect.arrayContaining(['read_graph']) },
      // A name guessed from the task: the tools that are meant, by meaning.
      { name: 'create_issue', didYouMean: expect.arrayContaining(['github__create_issue', 'gitlab__create_issue']) },
    ]);
    expect(described.unknown[0].didYouMean[0]).toBe('read_graph');
  });

  it('takes what a script may send without failing: a single name, names that are not strings', () => {
    expect(describeTools(catalog, 'echo' as unknown as string[]).tools.map((t) => t.name)).toEqual(['echo']);
    expect(describeTools(catalog, [7, null, { a: 1 }, 'echo'] as unknown as string[])).toEqual({ tools: [expect.objectContaining({ name: 'echo' })], unknown: [] });
    expect(searchTools(catalog, undefined as unknown as string)).toEqual([]);
  });
});

describe('groups', () => {
  it('a tool belongs to its group, else to the server its MCP id names, else to none', () => {
    expect(groupOfTool({ ...tool('a', ''), group: 'files' })).toBe('files');
    expect(groupOfTool(tool('read', '', { id: 'mcp:filesystem:read' }))).toBe('filesystem');
    expect(groupOfTool(tool('mine', '', { id: 'mine' }))).toBeUndefined();
  });

  it('are counted in the order they first come, the tools of no group last', () => {
    expect(groupsOf([tool('x', ''), tool('a', '', { id: 'mcp:fs:a' }), tool('b', '', { id: 'mcp:gh:b' }), tool('c', '', { id: 'mcp:fs:c' })])).toEqual([
      { name: 'fs', count: 2 },
      { name: 'gh', count: 1 },
      { name: undefined, count: 1 },
    ]);
  });
});

describe('createToolCatalog: the index follows the registry', () => {
  it('with a version, reads the tools again only when the version changes', () => {
    const registry = createToolRegistry([tool('read_file', 'Read a file.')]);
    let reads = 0;
    const catalog = createToolCatalog(
      () => {
        reads++;
        return registry.tools();
      },
      { version: () => registry.version },
    );
    expect(catalog.search('read a file').map((t) => t.name)).toEqual(['read_file']);
    catalog.search('read');
    catalog.describe(['read_file']);
    expect(reads).toBe(1);
    registry.set(tool('write_file', 'Write a file.'));
    expect(catalog.search('write a file')[0].name).toBe('write_file');
    expect(reads).toBe(2);
    registry.delete('read_file');
    expect(catalog.describe(['read_file']).unknown.map((u) => u.name)).toEqual(['read_file']);
  });

  it('without a version, sees a tool replaced by another object under the same name', () => {
    const tools = [tool('lookup', 'Look up a customer.')];
    const catalog = createToolCatalog(() => tools);
    const before = catalog.search('customer')[0];
    tools[0] = tool('lookup', 'Look up an invoice.', { inputSchema: { type: 'object', properties: { invoice: { type: 'string' } } } });
    expect(catalog.search('customer')).toEqual([]);
    expect(catalog.search('invoice')[0].declaration).not.toBe(before.declaration);
    expect(catalog.search('invoice')[0].declaration).toBe('lookup(args?: { invoice?: string }): Promise<unknown>;');
  });

  it('leaves out the tools `exclude` names, and sums up groups and declarations of the rest', () => {
    const catalog = createToolCatalog(() => [tool('a', 'A.', { id: 'mcp:fs:a' }), tool('run_js', 'Scripts.'), tool('b', 'B.', { id: 'mcp:fs:b' })], { exclude: (t) => t.name === 'run_js' });
    expect(catalog.tools().map((t) => t.name)).toEqual(['a', 'b']);
    expect(catalog.groups()).toEqual([{ name: 'fs', count: 2 }]);
    expect(catalog.search('scripts')).toEqual([]);
    expect(catalog.declarations()).toBe(
      'declare const tools: {\n  /** A. */\n  a(args: {\n    /** Where */\n    path: string;\n  }): Promise<unknown>;\n  /** B. */\n  b(args: {\n    /** Where */\n    path: string;\n  }): Promise<unknown>;\n};',
    );
  });
});

describe('a tool that breaks its own type', () => {
  it('is declared and ranked all the same: a description or schema that is not what it should be is left out', () => {
    const odd = [
      { name: 'odd', description: 42, inputSchema: 'not a schema' },
      { name: 'fine', description: 'Read the odd file.', inputSchema: { type: 'object', properties: { path: { type: 'string', description: 7 } } } },
    ] as unknown as ITool[];
    expect(searchTools(odd, 'odd file').map((t) => t.name)).toEqual(['fine', 'odd']);
    expect(describeTools(odd, ['odd']).tools[0]).toEqual({ name: 'odd', description: '', declaration: 'odd(args?: unknown): Promise<unknown>;' });
    expect(createToolCatalog(() => odd).declarations()).toContain('  odd(args?: unknown): Promise<unknown>;');
  });
});
