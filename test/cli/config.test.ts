/**
 * The config file: YAML or JSON, checked against the published JSON Schema, every problem naming
 * the file and the field.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compositePaths, loadComposites } from '../../src/cli/composites.js';
import { ConfigError, loadConfig } from '../../src/cli/config.js';
import { PUBLISHED_SCHEMA } from '../../src/cli/config-schema.js';
import { parseArgs, UsageError, type McpArgs } from '../../src/cli/args.js';
import { REPO } from '../mcp/helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function problemsOf(name: string, text: string): Promise<string[]> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  try {
    await loadConfig(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('config_invalid');
    return (error as ConfigError).problems;
  }
  return [];
}

describe('loadConfig', () => {
  it('reads the shape the README shows, in YAML and in JSON', async () => {
    const yaml = `servers:
  fs:
    command: npx
    args: ["@modelcontextprotocol/server-filesystem", "./project"]
    env: {}
    prefix: false
    trustAnnotations: true
    tools:
      move_file: { hasSideEffects: true }
  remote:
    url: http://127.0.0.1:8080/mcp
    headers: { Authorization: "Bearer x" }
sideEffectingTools: [write_file]
composites: [./specs/*.yaml]
script: { timeoutMs: 30000 }
approvals: elicit
codeOnly: true
`;
    expect(await problemsOf('good.yaml', yaml)).toEqual([]);
    const config = await loadConfig(path.join(dir, 'good.yaml'));
    expect(config).toMatchObject({ servers: { fs: { command: 'npx', tools: { move_file: { hasSideEffects: true } } } }, approvals: 'elicit', codeOnly: true, base: dir });
    await writeFile(path.join(dir, 'good.json'), JSON.stringify({ servers: { fs: { command: 'node' } } }));
    expect((await loadConfig(path.join(dir, 'good.json'))).servers.fs.command).toBe('node');
  });

  it('names the file and the field of each problem', async () => {
    const file = path.join(dir, 'bad.yaml');
    const problems = await problemsOf('bad.yaml', `servers:
  fs:
    comand: npx
    args: ./project
  web:
    command: node
    url: http://127.0.0.1:1/mcp
approvals: maybe
script: { timeout: 5 }
codeOnly: "yes"
`);
    expect(problems).toEqual(expect.arrayContaining([
      `${file}: servers.fs: unknown field "comand"`,
      `${file}: servers.fs.args: must be array`,
      `${file}: servers.fs: give either command (with args, env, cwd) or url (with headers), not both and not neither`,
      `${file}: servers.web: give either command (with args, env, cwd) or url (with headers), not both and not neither`,
      `${file}: approvals: must be one of "none", "elicit", "queue"`,
      `${file}: script: unknown field "timeout"`,
      `${file}: codeOnly: must be boolean`,
    ]));
  });

  it('reads approvals as a mode or as the mode with its settings, each problem said once', async () => {
    const servers = 'servers: { fs: { command: node } }\n';
    await writeFile(path.join(dir, 'queue.yaml'), `${servers}approvals: { mode: queue, port: 0, maxPending: 5, approver: the on-call admin }\n`);
    expect((await loadConfig(path.join(dir, 'queue.yaml'))).approvals).toEqual({ mode: 'queue', port: 0, maxPending: 5, approver: 'the on-call admin' });
    const file = (name: string) => path.join(dir, name);
    expect(await problemsOf('mode.yaml', `${servers}approvals: later\n`)).toEqual([`${file('mode.yaml')}: approvals: must be one of "none", "elicit", "queue"`]);
    expect(await problemsOf('number.yaml', `${servers}approvals: 5\n`)).toEqual([`${file('number.yaml')}: approvals: must be string or object`]);
    expect(await problemsOf('long.yaml', `${servers}approvals: { mode: later, prot: 8 }\n`)).toEqual([
      `${file('long.yaml')}: approvals: unknown field "prot"`,
      `${file('long.yaml')}: approvals.mode: must be one of "none", "elicit", "queue"`,
    ]);
  });

  it('says when the file is missing, is not YAML, or has no servers', async () => {
    await expect(loadConfig(path.join(dir, 'nope.yaml'))).rejects.toThrow(/nope\.yaml: cannot be read \(ENOENT\)/u);
    expect(await problemsOf('broken.yaml', 'servers: [unclosed')).toEqual([expect.stringMatching(/broken\.yaml: is not valid YAML/u)]);
    expect(await problemsOf('broken.json', '{"servers":')).toEqual([expect.stringMatching(/broken\.json: is not valid JSON/u)]);
    expect(await problemsOf('empty.yaml', 'sideEffectingTools: []\n')).toEqual([`${path.join(dir, 'empty.yaml')}: (top level): missing field "servers"`]);
  });

  it('the published schema file is the schema the loader checks with', async () => {
    const published = JSON.parse(await readFile(path.join(REPO, 'schema/toolweave.config.schema.json'), 'utf8'));
    expect(published).toEqual(JSON.parse(JSON.stringify(PUBLISHED_SCHEMA)));
    const pkg = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8'));
    expect(pkg.files).toContain('schema');
  });
});

describe('composite files', () => {
  it('expands * within a folder, and reports a wrong file while reading the others', async () => {
    const specs = path.join(dir, 'specs');
    await import('node:fs/promises').then((fs) => fs.mkdir(specs, { recursive: true }));
    await writeFile(path.join(specs, 'a.yaml'), 'name: a\ndescription: A.\ninputSchema: { type: object }\nspec: { steps: [] }\n');
    await writeFile(path.join(specs, 'b.yaml'), 'name: b\ndescription: B.\ninputSchema: { type: object }\nspec: { steps: [] }\nexample: []\n');
    await writeFile(path.join(specs, 'notes.txt'), 'not a composite');
    expect(await compositePaths(['specs/*.yaml'], dir)).toEqual([path.join(specs, 'a.yaml'), path.join(specs, 'b.yaml')]);
    const { composites, problems } = await loadComposites(['specs/*.yaml'], dir);
    expect(composites.map((c) => c.name)).toEqual(['a']);
    expect(problems).toEqual([`${path.join(specs, 'b.yaml')}: (top level): unknown field "example"`]);
  });
});

describe('the command line', () => {
  it('reads mcp, check and their options', () => {
    expect(parseArgs(['mcp', '--trust-annotations', '--chain', 'write_file, edit_file', '--http', '8808', '--', 'npx', 'server', '.'])).toEqual({
      command: 'mcp', upstream: ['npx', 'server', '.'], trustAnnotations: true, chain: ['write_file', 'edit_file'], codeOnly: false, http: { host: '127.0.0.1', port: 8808 }, verbose: false,
    });
    expect(parseArgs(['mcp', '--code-only', '--', 'npx', 'server'])).toMatchObject({ codeOnly: true, upstream: ['npx', 'server'] });
    expect(parseArgs(['mcp', '--config', 'tw.yaml', '--http', '[::1]:9000', '--verbose'])).toMatchObject({ config: 'tw.yaml', http: { host: '::1', port: 9000 }, verbose: true });
    expect(parseArgs(['check', '--config', 'tw.yaml'])).toEqual({ command: 'check', config: 'tw.yaml' });
  });

  it('reads --max-calls, the calls one run_js run may make, and refuses one that is not a number', () => {
    expect(parseArgs(['mcp', '--max-calls', '2000', 'node', 'server.js'])).toMatchObject({ maxCalls: 2000, upstream: ['node', 'server.js'] });
    expect(() => parseArgs(['mcp', '--max-calls', 'many', 'node', 'server.js'])).toThrow(/--max-calls takes a whole number of calls/u);
  });

  it('starts the server at the first word that is not an option or its value, with or without --', () => {
    const mcp = (...words: string[]) => parseArgs(['mcp', ...words]) as McpArgs;
    // As the MCP Inspector's CLI passes it on, having dropped the --.
    expect(mcp('--trust-annotations', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '.')).toEqual({
      command: 'mcp', upstream: ['npx', '-y', '@modelcontextprotocol/server-filesystem', '.'], trustAnnotations: true, chain: [], codeOnly: false, verbose: false,
    });
    expect(mcp('--trust-annotations', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '.')).toEqual(mcp('--trust-annotations', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '.'));
    // An option's value is not the command.
    expect(mcp('--chain', 'write_file', '--http', '8808', 'node', 'server.js')).toMatchObject({ upstream: ['node', 'server.js'], chain: ['write_file'], http: { port: 8808 } });
    // A config and a server on the command line are one or the other.
    expect(() => mcp('--config', 'tw.yaml', 'node', 'server.js')).toThrow(/takes its servers from --config <file> or from the command line, not both/u);
    expect(() => mcp('--config', 'tw.yaml', '--', 'node', 'server.js')).toThrow(/add it to the config's servers/u);
    // Every word after the start is the server's, toolweave's own options and -- included.
    expect(mcp('node', 'server.js', '--verbose', '--chain', 'x', '--', 'y').upstream).toEqual(['node', 'server.js', '--verbose', '--chain', 'x', '--', 'y']);
    expect(mcp('node', 'server.js', '--verbose')).toMatchObject({ verbose: false, chain: [] });
    expect(mcp('--', '--weird-name', 'a').upstream).toEqual(['--weird-name', 'a']);
    // An option before the command is still checked, and a missing value is still missing.
    expect(() => mcp('--chian', 'x', 'node', 'server.js')).toThrow(/Unknown option "--chian"/u);
    expect(() => mcp('--chain', '--', 'node')).toThrow(/--chain needs a value/u);
    expect(() => mcp('--chain')).toThrow(/--chain needs a value/u);
  });

  it('reads the hosts and origins an HTTP request may name', () => {
    expect(parseArgs(['mcp', '--http', '0.0.0.0:8808', '--allowed-hosts', 'mcp.example, 192.0.2.7,[::1]', '--allowed-origins', 'https://app.example', '--', 'x'])).toMatchObject({
      http: { host: '0.0.0.0', port: 8808, allowedHosts: ['mcp.example', '192.0.2.7', '[::1]'], allowedOrigins: ['https://app.example'] },
    });
    expect((parseArgs(['mcp', '--http', '8808', '--', 'x']) as McpArgs).http).toEqual({ host: '127.0.0.1', port: 8808 });
    expect(() => parseArgs(['mcp', '--allowed-hosts', 'mcp.example', '--', 'x'])).toThrow(/--allowed-hosts applies to --http/u);
    expect(() => parseArgs(['mcp', '--allowed-origins', 'https://app.example', '--', 'x'])).toThrow(/--allowed-origins applies to --http/u);
    expect(() => parseArgs(['mcp', '--http', '8808', '--allowed-hosts', 'http://mcp.example', '--', 'x'])).toThrow(/--allowed-hosts: "http:\/\/mcp.example" is not a host name/u);
    expect(() => parseArgs(['mcp', '--http', '8808', '--allowed-hosts', ' , ', '--', 'x'])).toThrow(/--allowed-hosts needs at least one host name/u);
    expect(() => parseArgs(['mcp', '--http', '8808', '--allowed-origins', 'app.example', '--', 'x'])).toThrow(/--allowed-origins: "app.example" is not an origin/u);
  });

  it('reads approvals list, approve and refuse', () => {
    expect(parseArgs(['approvals', 'list'])).toEqual({ command: 'approvals', action: 'list', json: false });
    expect(parseArgs(['approvals', 'list', '--json'])).toEqual({ command: 'approvals', action: 'list', json: true });
    expect(parseArgs(['approvals', 'approve', 'q3Fx9aK2b.1'])).toEqual({ command: 'approvals', action: 'approve', id: 'q3Fx9aK2b.1' });
    expect(parseArgs(['approvals', 'refuse', 'q3Fx9aK2b', '--reason', 'not now'])).toEqual({ command: 'approvals', action: 'refuse', id: 'q3Fx9aK2b', reason: 'not now' });
    expect(() => parseArgs(['approvals', 'approve'])).toThrow(/needs the id of an approval/u);
    expect(() => parseArgs(['approvals', 'approve', '../x'])).toThrow(/needs the id of an approval/u);
    expect(() => parseArgs(['approvals', 'approve', 'q1', '--reason', 'x'])).toThrow(/Unknown option "--reason"/u);
    expect(() => parseArgs(['approvals', 'forget'])).toThrow(/takes list, approve <id> or refuse <id>/u);
  });

  it('refuses what it cannot run, saying what to write', () => {
    expect(() => parseArgs(['mcp'])).toThrow(UsageError);
    expect(() => parseArgs(['mcp', '--'])).toThrow(/Nothing after --/u);
    expect(() => parseArgs(['mcp', '--http', 'localhost:99999', '--', 'x'])).toThrow(/--http takes \[host:\]port/u);
    expect(() => parseArgs(['mcp', '--chian', 'x', '--', 'x'])).toThrow(/Unknown option "--chian"/u);
    expect(() => parseArgs(['check'])).toThrow(/needs --config/u);
    expect(() => parseArgs(['serve'])).toThrow(/Unknown command "serve"/u);
  });
});

describe("the README's MCP client config", () => {
  it('starts toolweave mcp with options the bin reads, in front of the filesystem server', async () => {
    const readme = await readFile(path.join(REPO, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Use it from an MCP client'));
    const json = /```json\n([\s\S]*?)```/u.exec(section)![1];
    const { command, args } = JSON.parse(json).mcpServers.project as { command: string; args: string[] };
    // The installed bin, which test/package/pack.test.ts runs from a global and a project install.
    expect(command).toBe('toolweave');
    expect(parseArgs(args)).toEqual({
      command: 'mcp', trustAnnotations: true, chain: ['write_file'], codeOnly: false, verbose: false,
      upstream: ['npx', '-y', '@modelcontextprotocol/server-filesystem', '/path/to/project'],
    });
  });
});
