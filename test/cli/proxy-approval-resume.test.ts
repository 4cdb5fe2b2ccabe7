/**
 * `approvals: queue` beside other settings of the proxy: with `record:` a run the person approved
 * goes on when resumed, through each door (run_pipeline, compose, run_js). Driven by an SDK client
 * over stdio and the real `toolweave approvals` command. The pause names the bin that serves by its
 * absolute path, and that command works from any folder (the built bin: `npm run build` first).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, copyProject, FS_SERVER, processesLeft, REPO, type Project } from '../mcp/helpers.js';
import { proxyOverStdio, runBin, callText, queuedRunId, type TextAnswer } from './proxy-process.js';

let project: Project;
let approvalsDir: string;
const env = () => ({ TOOLWEAVE_APPROVALS_DIR: approvalsDir });

beforeAll(async () => {
  project = await copyProject('toolweave-queue-resume-');
  approvalsDir = path.join(project.root, '.approvals');
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

const call = callText;
const runIdOf = queuedRunId;

async function note(name: string): Promise<{ from: string; to: string }> {
  await mkdir(path.join(project.root, 'archive'), { recursive: true });
  const from = path.join(project.root, `${name}.txt`);
  await writeFile(from, `note ${name}`);
  return { from, to: path.join(project.root, 'archive', `${name}.txt`) };
}

/** A config file for the filesystem server with `move_file` side-effecting and queued approvals, plus `extra`. */
async function configWith(name: string, extra: Record<string, unknown>): Promise<string> {
  const file = path.join(project.root, `${name}.json`);
  await writeFile(
    file,
    JSON.stringify({
      servers: { fs: { command: process.execPath, args: [FS_SERVER, project.root], trustAnnotations: true } },
      sideEffectingTools: ['move_file'],
      approvals: { mode: 'queue' },
      ...extra,
    }),
  );
  return file;
}

/** Pause through `door`, approve with the bin, resume: the move ran once and the run's result came back. */
async function approveAndResume(client: Client, door: string, args: Record<string, unknown>, from: string, to: string): Promise<TextAnswer> {
  const paused = await call(client, door, args);
  expect(paused.text).toMatch(/^error approval_pending: /u);
  const run = runIdOf(paused.text);
  expect(run).toMatch(/^q[A-Za-z0-9]{8}$/u);
  expect(existsSync(from)).toBe(true);
  const approved = await runBin(['approvals', 'approve', run], undefined, env());
  expect([approved.code, approved.stderr]).toEqual([0, '']);
  const resumed = await call(client, 'resume_run', { run });
  expect(resumed.text).not.toMatch(/approval_pending/u);
  expect(resumed.isError).toBe(false);
  expect(existsSync(from)).toBe(false);
  expect(await readFile(to, 'utf8')).toBe(`note ${path.basename(from, '.txt')}`);
  return resumed;
}

describe('approvals: queue with record:', () => {
  it('an approved call runs when resumed, through run_pipeline, compose and run_js, and the recording holds the runs', async () => {
    const recordings = path.join(project.root, '.recordings');
    const config = await configWith('recorded', { record: recordings });
    const proxy = await proxyOverStdio(['--config', config], { env: env() });
    try {
      const a = await note('rec-a');
      await approveAndResume(proxy.client, 'run_pipeline', { steps: [{ id: 'archive', tool: 'move_file', args: { source: a.from, destination: a.to } }] }, a.from, a.to);

      const b = await note('rec-b');
      await approveAndResume(proxy.client, 'compose', { combinator: 'pipe', stages: [{ tool: 'move_file', args: { source: b.from, destination: b.to } }] }, b.from, b.to);

      const c = await note('rec-c');
      const script = `const r = await callTool('move_file', { source: ${JSON.stringify(c.from)}, destination: ${JSON.stringify(c.to)} }); return r.error ? 'failed: ' + r.error.message : 'moved';`;
      const resumed = await approveAndResume(proxy.client, 'run_js', { intention: 'archive a note', code: script }, c.from, c.to);
      expect(resumed.text).toContain('moved');
      expect(resumed.text).not.toContain('failed');
    } finally {
      await proxy.close();
    }
    // Each move reached the server once, and was recorded so.
    const files = (await readdir(recordings)).filter((name) => name.endsWith('.jsonl'));
    const records = (await Promise.all(files.map((name) => readFile(path.join(recordings, name), 'utf8'))))
      .flatMap((text) => text.split('\n').filter(Boolean))
      .map((line) => JSON.parse(line) as { tool: string; ok: boolean });
    expect(records.filter((record) => record.tool === 'move_file' && record.ok)).toHaveLength(3);
  }, 120_000);
});

describe('approvals: queue with codeOnly: true', () => {
  it('serves resume_run beside run_js, so a script that paused goes on once approved; check names the tools served', async () => {
    const config = await configWith('code-only', { codeOnly: true });
    const checked = await runBin(['check', '--config', config], undefined, env());
    expect(checked.stdout).toContain('ok   own tools served: run_js, get_observation, resume_run');
    expect(checked.code).toBe(0);

    const proxy = await proxyOverStdio(['--config', config], { env: env() });
    try {
      const { tools } = await proxy.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['run_js', 'get_observation', 'resume_run']);
      const { from, to } = await note('code-only');
      const script = `const r = await callTool('move_file', { source: ${JSON.stringify(from)}, destination: ${JSON.stringify(to)} }); return r.error ? 'failed: ' + r.error.message : 'moved';`;
      const resumed = await approveAndResume(proxy.client, 'run_js', { intention: 'archive a note', code: script }, from, to);
      expect(resumed.text).toContain('moved');
    } finally {
      await proxy.close();
    }
  }, 120_000);
});

/** Run `command` (as the text shows it) in a shell, in `cwd`. */
function shell(command: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env() } });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the approval text names the bin that serves', () => {
  it('by its absolute path with this Node, never npx; run as written from another folder, it answers the approval', async () => {
    const bin = path.join(REPO, 'dist/cli/toolweave.js');
    const config = await configWith('own-command', {});
    const proxy = await connectStdio(process.execPath, [bin, 'mcp', '--config', config], { cwd: project.root, env: env() });
    try {
      const { from, to } = await note('own-command');
      const paused = await call(proxy.client, 'run_pipeline', { steps: [{ id: 'archive', tool: 'move_file', args: { source: from, destination: to } }] });
      const run = runIdOf(paused.text);
      expect(paused.text).not.toContain('npx');
      const command = /`([^`]+) approvals approve q[A-Za-z0-9]+`/u.exec(paused.text)?.[1] ?? '';
      expect(command).toBe(`${process.execPath} ${bin}`);
      expect(paused.text).toContain(`\`${command} approvals list\``);
      // A folder where toolweave is not installed: the command does not depend on it.
      const elsewhere = await shell(`${command} approvals approve ${run}`, path.join(project.root, 'archive'));
      expect([elsewhere.code, elsewhere.stderr]).toEqual([0, '']);
      expect(elsewhere.stdout).toContain(`approved ${run}`);
      const resumed = await call(proxy.client, 'resume_run', { run });
      expect(resumed.isError).toBe(false);
      expect(await readFile(to, 'utf8')).toBe('note own-command');
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
