/**
 * A server that is not connected is not mistaken for a missing tool. The client is told which
 * server is down and why: in the session's instructions, in the answer to a call of one of its
 * tools (`upstream_unavailable`, listed from the config when the server never came up), and in
 * the `step_missing` answer to a name no known tool has, since it may be one of the server's. The
 * built bin is run (`npm run build` first), as `npx toolweave` runs it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, processesLeft, REPO, type ChildClient } from '../mcp/helpers.js';

const BIN = path.join(REPO, 'dist/cli/toolweave.js');
const MISSING_COMMAND = 'no-such-command-toolweave-down';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-down-'));
});
afterAll(async () => {
  expect(await processesLeft(dir)).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

/** A call's answer as the client sees it: whether it failed, and its text. */
async function call(proxy: ChildClient, name: string, args: Record<string, unknown> = {}) {
  const answer = CallToolResultSchema.parse(await proxy.client.callTool({ name, arguments: args }));
  return { isError: answer.isError === true, text: (answer.content[0] as { text: string }).text };
}

/** What a script's call of `name` answered: its error code and message. */
async function fromScript(proxy: ChildClient, name: string): Promise<{ code: string; message: string; innerCode?: string }> {
  const answer = await call(proxy, 'run_js', { code: `return (await callTool(${JSON.stringify(name)}, { path: 'README.md' })).error;` });
  expect(answer.isError).toBe(false);
  return JSON.parse(answer.text) as { code: string; message: string; innerCode?: string };
}

describe('a server whose command does not exist, with no tools known', () => {
  let proxy: ChildClient;
  beforeAll(async () => {
    proxy = await connectStdio(process.execPath, [BIN, 'mcp', '--', MISSING_COMMAND, dir]);
  }, 30_000);
  afterAll(async () => {
    await proxy?.close();
  });

  const why = `could not be started: command "${MISSING_COMMAND}" not found; the proxy starts it again in`;

  it('the session’s instructions say it is not connected, and why', () => {
    const instructions = proxy.client.getInstructions() ?? '';
    expect(instructions).toContain('MCP servers not connected now (a call to one of their tools answers upstream_unavailable, saying why):');
    expect(instructions).toContain(`- "upstream": ${why}`);
    expect(instructions).toContain('Its tools are not listed until it is up.');
  });

  it('a call of a tool it may hold is step_missing, saying which server is not connected and why', async () => {
    const direct = await call(proxy, 'read_text_file', { path: 'README.md' });
    expect(direct.isError).toBe(true);
    expect(direct.text).toMatch(
      new RegExp(
        `^error step_missing: No tool named "read_text_file" is registered\\. MCP server "upstream" is not connected: ${escape(why)} \\d+ s\\. ` +
          'Its tools are not known until it is up, so "read_text_file" may be one of them\\.$',
        'u',
      ),
    );
    // The same from inside a script.
    const nested = await fromScript(proxy, 'read_text_file');
    expect(nested.code).toBe('step_missing');
    expect(nested.message).toContain(`MCP server "upstream" is not connected: ${why}`);
  });
});

describe('a server that never came up, whose config names its tools', () => {
  let proxy: ChildClient;
  beforeAll(async () => {
    const config = path.join(dir, 'ghost.json');
    await writeFile(
      config,
      JSON.stringify({
        servers: {
          ghost: { command: MISSING_COMMAND, args: [dir], tools: { read_text_file: { hasSideEffects: false }, write_file: { hasSideEffects: true } } },
        },
      }),
    );
    proxy = await connectStdio(process.execPath, [BIN, 'mcp', '--config', config]);
  }, 30_000);
  afterAll(async () => {
    await proxy?.close();
  });

  it('lists those tools, and a call of one answers upstream_unavailable naming the server and why', async () => {
    const tools = (await proxy.client.listTools()).tools;
    expect(tools.map((t) => t.name)).toEqual(['run_pipeline', 'compose', 'run_js', 'get_observation', 'read_text_file', 'write_file']);
    expect(tools.find((t) => t.name === 'read_text_file')?.annotations?.readOnlyHint).toBe(true);
    const direct = await call(proxy, 'read_text_file', { path: 'README.md' });
    expect(direct.isError).toBe(true);
    expect(direct.text).toMatch(
      new RegExp(`^error upstream_unavailable: MCP server "ghost" is not connected: could not be started: command "${MISSING_COMMAND}" not found; the proxy starts it again in \\d+ s\\. The call to "read_text_file" was not made\\.$`, 'u'),
    );
    // From a script too: the pure tool passes the chainability rule and answers the same.
    const nested = await fromScript(proxy, 'read_text_file');
    // A script sees a tool's own failure as step_failed, with the tool's code as innerCode.
    expect(nested).toMatchObject({ code: 'step_failed', innerCode: 'upstream_unavailable' });
    expect(nested.message).toContain('MCP server "ghost" is not connected: could not be started');
  });

  it('a name the config does not give is step_missing, naming the server that is not connected', async () => {
    const answer = await call(proxy, 'list_directory', { path: '.' });
    expect(answer.text).toMatch(/^error step_missing: No tool named "list_directory" is registered.* MCP server "ghost" is not connected: could not be started/u);
    // Its tools are known from the config, so it does not guess that the name is one of them.
    expect(answer.text).not.toContain('may be one of them');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}
