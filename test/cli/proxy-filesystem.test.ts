/**
 * `toolweave mcp -- node <filesystem server> <folder>`, started as a real child process and driven
 * by the SDK's Client over stdio and over Streamable HTTP: list tools, run_js, previews and
 * get_observation, progress, and a cancel mid-run that starts nothing more and reports its effects.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, FS_SERVER, liveProcesses, processesLeft, sleep, type ChildClient, type Project } from '../mcp/helpers.js';
import { httpClient, proxyOverHttp, proxyOverStdio, type HttpProxy } from './proxy-process.js';

let project: Project;
beforeAll(async () => {
  project = await copyProject('toolweave-proxy-');
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

const upstream = () => ['--', process.execPath, FS_SERVER, project.root];
const textOf = (result: unknown) => (CallToolResultSchema.parse(result).content[0] as { text: string }).text;

/** A script that writes n1.txt, n2.txt, ... with a pause between, so a cancel lands between two calls. */
function slowWrites(folder: string): string {
  return `for (let i = 1; i <= 10; i++) {
    const r = await callTool('write_file', { path: ${JSON.stringify(folder)} + '/n' + i + '.txt', content: String(i) });
    if (r.error) return r.error.code;
    const t = Date.now(); while (Date.now() - t < 400) {}
  }
  return 'all written';`;
}

/** Call the slow script, cancel after the second write, and return what the client was told. */
async function cancelMidRun(client: Client, folder: string) {
  const logged = new Promise<{ cancelled: string; effects: { tool: string }[] }>((resolve) =>
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => resolve(n.params.data as { cancelled: string; effects: { tool: string }[] })),
  );
  const progress: string[] = [];
  const controller = new AbortController();
  const running = client.callTool({ name: 'run_js', arguments: { intention: 'write ten notes', code: slowWrites(folder) } }, undefined, {
    signal: controller.signal,
    onprogress: (p) => {
      progress.push(String(p.message));
      if (p.progress === 2) controller.abort('the person pressed stop');
    },
  });
  await expect(running).rejects.toThrow(/pressed stop/u);
  const report = await logged;
  await sleep(1200);
  const written = (await readdir(folder)).filter((f) => /^n\d+\.txt$/u.test(f));
  return { report, progress, written };
}

describe('the proxy over stdio', () => {
  let proxy: ChildClient;
  beforeAll(async () => {
    proxy = await proxyOverStdio(['--trust-annotations', '--chain', 'write_file', ...upstream()]);
  }, 60_000);
  afterAll(async () => {
    expect(liveProcesses(project.root).length).toBe(2);
    await proxy.close();
    expect(await processesLeft(project.root)).toEqual([]);
  });

  it('lists the upstream tools under their own names, plus the batching tools over them', async () => {
    const { tools } = await proxy.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['run_pipeline', 'compose', 'run_js', 'get_observation', 'read_text_file', 'write_file', 'list_directory']));
    const by = new Map(tools.map((t) => [t.name, t]));
    expect(by.get('read_text_file')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(by.get('write_file')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    // Results are shaped into previews here, so the upstream outputSchema is not promised.
    expect(by.get('read_text_file')!.outputSchema).toBeUndefined();
    expect(proxy.client.getInstructions()).toContain('run_js');
    // The server's stderr reaches the proxy's, with the server's name in front; stdout is the protocol.
    expect(proxy.stderr()).toContain('[upstream] Secure MCP Filesystem Server running on stdio');
  });

  it('run_js reads several files through callTool in one call', async () => {
    const code = `const files = ['cache', 'orders'].map((f) => ${JSON.stringify(project.root)} + '/src/app/' + f + '.js');
      const read = await Promise.all(files.map((path) => callTool('read_text_file', { path })));
      return read.map((r) => r.error ? r.error.code : r.text.includes('cacheKey')).join(',');`;
    expect(textOf(await proxy.client.callTool({ name: 'run_js', arguments: { intention: 'find cacheKey', code } }))).toBe('true,true');
  });

  it('a large result comes back as a preview with an obs_ id, paged back with get_observation', async () => {
    const log = path.join(project.root, 'logs/build.log');
    const preview = textOf(await proxy.client.callTool({ name: 'read_text_file', arguments: { path: log } }));
    expect(preview.length).toBeLessThan(2600);
    expect(preview.startsWith('{')).toBe(false);
    const id = /obs_[a-z2-7]{20}/u.exec(preview)![0];
    const page = textOf(await proxy.client.callTool({ name: 'get_observation', arguments: { ids: [id], offset: 100, lines: 3 } }));
    const lines = (await readFile(log, 'utf8')).split('\n');
    expect(page).toContain(lines[100]);
  });

  it('a direct call of a side-effecting tool runs; an unknown tool is step_missing', async () => {
    const note = path.join(project.root, 'direct.txt');
    expect(textOf(await proxy.client.callTool({ name: 'write_file', arguments: { path: note, content: 'hi' } }))).toContain('Successfully wrote');
    expect(await readFile(note, 'utf8')).toBe('hi');
    const unknown = CallToolResultSchema.parse(await proxy.client.callTool({ name: 'read_txt_file', arguments: {} }));
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/^error step_missing: No tool named "read_txt_file".*did you mean .*read_text_file/u);
  });

  it('cancelled mid-run: no call starts after the cancel, and the effects so far are reported', async () => {
    const folder = path.join(project.root, 'stdio-notes');
    await proxy.client.callTool({ name: 'create_directory', arguments: { path: folder } });
    const { report, progress, written } = await cancelMidRun(proxy.client, folder);
    expect(progress.slice(0, 2)).toEqual(['1 write_file ok', '2 write_file ok']);
    expect(report.cancelled).toBe('run_js');
    expect(report.effects.map((e) => e.tool)).toEqual(['write_file', 'write_file']);
    expect(written.sort()).toEqual(['n1.txt', 'n2.txt']);
  });
});

describe('the proxy over Streamable HTTP', () => {
  let proxy: HttpProxy;
  beforeAll(async () => {
    proxy = await proxyOverHttp(['--trust-annotations', '--chain', 'write_file', ...upstream()]);
  }, 60_000);
  afterAll(async () => {
    expect(liveProcesses(project.root).length).toBe(2);
    expect(await proxy.stop()).toBe(0);
    expect(await processesLeft(project.root)).toEqual([]);
  });

  it('lists tools and runs run_js, with progress', async () => {
    const client = await httpClient(proxy.url);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['run_js', 'read_text_file']));
    const progress: string[] = [];
    const code = `const r = await callTool('list_directory', { path: ${JSON.stringify(path.join(project.root, 'src/app'))} }); return r.text;`;
    const listed = textOf(await client.callTool({ name: 'run_js', arguments: { intention: 'list', code } }, undefined, { onprogress: (p) => progress.push(String(p.message)) }));
    expect(listed).toContain('[FILE] cache.js');
    expect(progress).toEqual(['1 list_directory ok']);
    await client.close();
  });

  it('cancelled mid-run over HTTP: nothing starts after the cancel, and the effects are reported', async () => {
    const client = await httpClient(proxy.url);
    const folder = path.join(project.root, 'http-notes');
    await client.callTool({ name: 'create_directory', arguments: { path: folder } });
    const { report, written } = await cancelMidRun(client, folder);
    expect(report.effects.length).toBe(2);
    expect(written.sort()).toEqual(['n1.txt', 'n2.txt']);
    await client.close();
  });
});

describe('the proxy without trust or a chain list', () => {
  it('refuses in scripts what the host has not declared or listed, and still serves direct calls', async () => {
    const proxy = await proxyOverStdio(upstream());
    try {
      const file = JSON.stringify(path.join(project.root, 'README.md'));
      const script = `const r = await callTool('read_text_file', { path: ${file} }); return r.error ? r.error.code : 'read';`;
      expect(textOf(await proxy.client.callTool({ name: 'run_js', arguments: { intention: 'read', code: script } }))).toBe('side_effects_undeclared');
      expect(textOf(await proxy.client.callTool({ name: 'read_text_file', arguments: { path: JSON.parse(file) } }))).toContain('shop-api');
    } finally {
      await proxy.close();
    }
    const trusted = await proxyOverStdio(['--trust-annotations', ...upstream()]);
    try {
      const write = `const r = await callTool('write_file', { path: ${JSON.stringify(path.join(project.root, 'x.txt'))}, content: 'x' }); return r.error ? r.error.code : 'written';`;
      expect(textOf(await trusted.client.callTool({ name: 'run_js', arguments: { intention: 'write', code: write } }))).toBe('step_not_chainable');
    } finally {
      await trusted.close();
    }
  }, 60_000);
});
