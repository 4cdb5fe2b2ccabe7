import { describe, expect, it } from 'vitest';
import {
  createGetObservationTool,
  createObservationStore,
  createRunPipelineTool,
  createScriptDiscovery,
  createScriptTool,
  createStepGate,
  createToolRegistry,
  DEFAULT_INTERACTIVE_TOOLS,
  renderCodeOnlyDescription,
  type ITool,
} from '../../src/index.js';
import { servedCatalog } from '../../bench/catalog/snapshot.js';
import { tool } from '../helpers/tools.js';

const schema = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });

/** A registry like a host's: pure tools, side-effecting ones, an undeclared one, an interactive one, and the doors. */
function host() {
  const registry = createToolRegistry([
    tool('read_file', () => 'text', { hasSideEffects: false, id: 'mcp:fs:read_file', description: 'Read a file.', inputSchema: schema({ path: { type: 'string' } }, ['path']) }),
    tool('list_dir', () => 'a\nb', { hasSideEffects: false, id: 'mcp:fs:list_dir', description: 'List a folder.', inputSchema: schema({ path: { type: 'string' } }) }),
    tool('write_file', () => 'ok', { hasSideEffects: true, id: 'mcp:fs:write_file', description: 'Write a file.', inputSchema: schema({ path: { type: 'string' }, content: { type: 'string' } }, ['path', 'content']) }),
    tool('delete_file', () => 'ok', { hasSideEffects: true, id: 'mcp:fs:delete_file', description: 'Delete a file.' }),
    tool('fetch_url', () => 'html', { id: 'mcp:web:fetch_url', description: 'Fetch a URL.' } as Partial<ITool>),
    tool('ask_user', () => 'yes', { hasSideEffects: false, description: 'Ask the person.' }),
    tool('pick_color', () => 'red', { hasSideEffects: false, interactive: true, description: 'Let the person pick a color.' }),
    tool('get_time', () => 'noon', { hasSideEffects: false, id: 'mcp:clock:get_time', description: 'The time now.', inputSchema: schema({}) }),
  ]);
  const gate = createStepGate({ ...registry.gateOptions });
  registry.set(createRunPipelineTool(gate));
  registry.set(createScriptTool(gate, { sideEffectingTools: ['write_file'] }));
  registry.set(createGetObservationTool(createObservationStore()));
  return { registry, gate };
}

describe('createScriptDiscovery: the catalog holds what a script can call', () => {
  it('pure tools and listed side-effecting ones; not the doors, the interactive tools, the undeclared or the unlisted', () => {
    const { registry, gate } = host();
    const discovery = createScriptDiscovery(gate, {}, { sideEffectingTools: ['write_file'], interactiveTools: DEFAULT_INTERACTIVE_TOOLS });
    expect(discovery.catalog.tools().map((t) => t.name)).toEqual(['read_file', 'list_dir', 'write_file', 'get_time']);
    expect(discovery.codeOnly).toBe(false);
    // Every tool it offers passes the gate from a script: the rule it applies is the gate's.
    expect(registry.names().filter((n) => !discovery.catalog.tools().some((t) => t.name === n))).toEqual([
      'delete_file', 'fetch_url', 'ask_user', 'pick_color', 'run_pipeline', 'run_js', 'get_observation',
    ]);
  });

  it('follows the registry: a tool added is found at once', () => {
    const { registry, gate } = host();
    const discovery = createScriptDiscovery(gate, { version: () => registry.version });
    expect(discovery.catalog.search('weather')).toEqual([]);
    registry.set(tool('get_weather', () => 'sunny', { hasSideEffects: false, description: 'The weather forecast for a city.' }));
    expect(discovery.catalog.search('weather')[0].name).toBe('get_weather');
  });

  it("reads the gate's tools again only when the gate's version changes", () => {
    const registry = createToolRegistry([tool('read_file', () => 'text', { hasSideEffects: false, description: 'Read a file.' })]);
    let names = 0;
    const gate = createStepGate({ ...registry.gateOptions, names: () => (names++, registry.names()) });
    const discovery = createScriptDiscovery(gate);
    discovery.catalog.search('read');
    discovery.catalog.search('file');
    discovery.catalog.describe(['read_file']);
    expect(names).toBe(1);
    registry.set(tool('get_weather', () => 'sunny', { hasSideEffects: false, description: 'The weather forecast.' }));
    expect(discovery.catalog.search('weather')[0].name).toBe('get_weather');
    expect(names).toBe(2);
  });

  it('finds a tool registered under another name by that name, the one a script calls', () => {
    const registry = createToolRegistry();
    registry.set(tool('lookup', () => 1, { hasSideEffects: false, description: 'Look up a customer.' }), 'find_customer');
    const discovery = createScriptDiscovery(createStepGate({ ...registry.gateOptions }));
    expect(discovery.catalog.search('customer').map((t) => t.name)).toEqual(['find_customer']);
    // The same object each time: an unchanged registry is not indexed again.
    expect(discovery.catalog.tools()[0]).toBe(discovery.catalog.tools()[0]);
  });
});

describe('the code-only description of run_js', () => {
  it('lists a small catalog whole, as declarations, with how to call them', () => {
    const { gate } = host();
    const discovery = createScriptDiscovery(gate, { codeOnly: true }, { sideEffectingTools: ['write_file'] });
    const text = discovery.description();
    expect(text).toMatch(/^Run an async JS function body in a sandbox; return only the answer\. Call the tools below: await tools\.name\(args\)/u);
    expect(text).toContain('declare const tools: {');
    expect(text).toContain('  read_file(args: { path: string }): Promise<unknown>;');
    expect(text).toContain('  write_file(args: { path: string; content: string }): Promise<unknown>;');
    expect(text).not.toContain('searchTools');
  });

  it('past the listing bound, says how to search in one line and names the groups with their counts', () => {
    const catalog = servedCatalog();
    const groups = [...new Set(catalog.map((t) => t.group))].map((name) => ({ name, count: catalog.filter((t) => t.group === name).length }));
    const text = renderCodeOnlyDescription(catalog, groups);
    expect(text.split('\n')).toHaveLength(2);
    expect(text).toContain('160 tools are reached only from here');
    expect(text).toContain('await searchTools("what you need", 5) gives [{name, description, declaration}], best first');
    expect(text).toContain('await describeTools(["name"]) gives declarations');
    expect(text).toContain('tools["a-name"] for other names');
    expect(text.split('\n')[1]).toBe('Groups: everything 13, filesystem 14, memory 9, github 26, gitlab 9, slack 8, notion 24, playwright 25, chrome-devtools 32.');
    expect(text.length).toBeLessThan(1000);
  });

  it('counts the groups past its bound and the tools of no group', () => {
    const tools = Array.from({ length: 30 }, (_, i) => ({ name: `t${i}`, description: 'x'.repeat(100), inputSchema: schema({}) }));
    const text = renderCodeOnlyDescription(tools, [{ name: 'a', count: 10 }, { name: 'b', count: 10 }, { name: undefined, count: 10 }], { maxGroups: 1 });
    expect(text.split('\n')[1]).toBe('Groups: a 10, and 20 more tools.');
    expect(renderCodeOnlyDescription([], [])).toMatch(/No tools can be called from a script here\.$/u);
    // listUpToChars 0: never list, always search.
    expect(renderCodeOnlyDescription(tools.slice(0, 1), [], { listUpToChars: 0 })).toContain('searchTools');
  });
});

describe('the code-only description, at the listing bound', () => {
  it('lists the declarations while they fit in listUpToChars, not one character more', () => {
    const tools = [{ name: 'a', description: 'A.', inputSchema: schema({}) }, { name: 'b', description: 'B.', inputSchema: schema({}) }];
    const whole = renderCodeOnlyDescription(tools, [], { listUpToChars: 10_000 });
    const declarations = whole.slice(whole.indexOf('declare const tools'));
    expect(renderCodeOnlyDescription(tools, [], { listUpToChars: declarations.length })).toBe(whole);
    expect(renderCodeOnlyDescription(tools, [], { listUpToChars: declarations.length - 1 })).toContain('2 tools are reached only from here');
  });

  it('follows the catalog as it changes', () => {
    const registry = createToolRegistry([tool('read_file', () => 'text', { hasSideEffects: false, description: 'Read a file.' })]);
    const discovery = createScriptDiscovery(createStepGate({ ...registry.gateOptions }), { codeOnly: true });
    const first = discovery.description();
    expect(discovery.description()).toBe(first);
    registry.set(tool('write_note', () => 'ok', { hasSideEffects: false, description: 'Keep a note.' }));
    expect(discovery.description()).toContain('write_note');
  });
});
