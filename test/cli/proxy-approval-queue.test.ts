/**
 * `approvals: queue`: a composite's side-effecting step pauses the run; the client reads who must
 * approve and how; the person answers through the proxy's endpoint on 127.0.0.1 (real fetch) or
 * `toolweave approvals`; the client's resume_run then gets the run's result, the upstream tool
 * having run once. Tokens, ids and sessions are checked at each door.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, FS_SERVER, processesLeft, until, type Project } from '../mcp/helpers.js';
import { BIN_COMMAND, httpClient, proxyOverHttp, proxyOverStdio, runBin, callText, queuedRunId, type TextAnswer } from './proxy-process.js';

let project: Project;
let config: string;
let approvalsDir: string;
const env = () => ({ TOOLWEAVE_APPROVALS_DIR: approvalsDir });

beforeAll(async () => {
  project = await copyProject('toolweave-queue-');
  approvalsDir = path.join(project.root, '.approvals');
  config = path.join(project.root, 'toolweave.json');
  // Reads a note, moves it (side-effecting: it needs the person), reads it at its new place. A
  // move run twice fails (its source is gone), so a run that goes on shows the move ran once.
  await writeFile(
    path.join(project.root, 'archive.json'),
    JSON.stringify({
      name: 'archive_note',
      description: 'Move a note into the archive.',
      inputSchema: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } }, required: ['from', 'to'] },
      spec: {
        steps: [
          { name: 'before', tool: 'read_text_file', inputMapping: { path: '$input.from' } },
          { name: 'move', tool: 'move_file', inputMapping: { source: '$input.from', destination: '$input.to' } },
          { name: 'after', tool: 'read_text_file', inputMapping: { path: '$input.to' } },
        ],
        output: { moved: '$steps.move', text: '$steps.after' },
      },
    }),
  );
  await writeFile(
    config,
    JSON.stringify({
      servers: { fs: { command: process.execPath, args: [FS_SERVER, project.root], trustAnnotations: true } },
      sideEffectingTools: ['move_file'],
      composites: ['archive.json'],
      approvals: { mode: 'queue', approver: 'the release manager' },
    }),
  );
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

const call = callText;
const runIdOf = queuedRunId;

/** The one endpoint file the proxy wrote: its URL and token. */
async function endpoint(): Promise<{ url: string; token: string }> {
  const files = (await readdir(approvalsDir)).filter((name) => name.endsWith('.json'));
  expect(files).toHaveLength(1);
  return JSON.parse(await readFile(path.join(approvalsDir, files[0]), 'utf8')) as { url: string; token: string };
}
const asPerson = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

async function note(name: string): Promise<{ from: string; to: string }> {
  await mkdir(path.join(project.root, 'archive'), { recursive: true });
  const from = path.join(project.root, `${name}.txt`);
  await writeFile(from, `note ${name}`);
  return { from, to: path.join(project.root, 'archive', `${name}.txt`) };
}

describe('approvals: queue, over stdio', () => {
  it('pauses, tells the model who must approve and how, and resumes once the person approved over HTTP: the move runs once', async () => {
    const proxy = await proxyOverStdio(['--config', config], { env: env() });
    try {
      const { tools } = await proxy.client.listTools();
      expect(tools.map((t) => t.name)).toContain('resume_run');
      const { from, to } = await note('a');

      const paused = await call(proxy.client, 'archive_note', { from, to });
      expect(paused.isError).toBe(true);
      expect(paused.text).toMatch(/^error approval_pending: The run has paused, not failed: the release manager must approve this call/u);
      expect(paused.text).toContain('tool "move_file", step "move"');
      expect(paused.text).toContain(JSON.stringify(from));
      const run = runIdOf(paused.text);
      expect(run).toMatch(/^q[A-Za-z0-9]{8}$/u);
      // The bin that serves, as it was started (from source here), never `npx toolweave`.
      expect(paused.text).toContain(`${BIN_COMMAND.join(' ')} approvals approve ${run}`);
      expect(paused.text).toContain(`call resume_run with {"run": "${run}"}`);
      expect(existsSync(from)).toBe(true);
      // The proxy's log tells a person who watches it, without the token.
      const waits = `approval waits: run ${run} (archive_note) paused at ${run}.1 "move_file"`;
      await until(() => proxy.stderr().includes(waits), 10_000);
      expect(proxy.stderr()).toContain(waits);

      const { url, token } = await endpoint();
      expect(proxy.stderr()).toContain(`${url} with the bearer token in ${approvalsDir}`);
      expect(proxy.stderr()).not.toContain(token);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/approvals$/u);
      // The model's text never carries the person's token.
      expect(paused.text).not.toContain(token);
      // Without the token, or with another, nothing is listed or answered.
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: `Bearer ${token.slice(1)}x` } })).status).toBe(401);
      const forged = await fetch(`${url}/${run}.1`, { method: 'POST', headers: { authorization: 'Bearer nope', 'content-type': 'application/json' }, body: '{"decision":"approve"}' });
      expect(forged.status).toBe(401);

      // Not answered yet: resume_run says so at once, and nothing runs.
      const early = await call(proxy.client, 'resume_run', { run });
      expect(early.text).toMatch(/^error approval_pending: Still waiting: the release manager has not answered 1 of the 1 call/u);
      expect(existsSync(from)).toBe(true);

      const listed = (await (await fetch(url, { headers: asPerson(token) })).json()) as { approvals: Record<string, unknown>[] };
      expect(listed.approvals).toHaveLength(1);
      expect(listed.approvals[0]).toMatchObject({ id: `${run}.1`, run, tool: 'move_file', step: 'move', door: 'composite', composite: 'archive_note', status: 'waiting', args: { source: from, destination: to } });
      expect(String(listed.approvals[0].text)).toContain('Tool: move_file');

      // Bad answers are refused and change nothing.
      expect((await fetch(`${url}/${run}.1`, { method: 'POST', headers: asPerson(token), body: '{"decision":"maybe"}' })).status).toBe(400);
      expect((await fetch(`${url}/${run}.1`, { method: 'POST', headers: asPerson(token), body: JSON.stringify({ decision: 'refuse', reason: 'x'.repeat(5000) }) })).status).toBe(413);
      const unknown = await fetch(`${url}/qnothere1.1`, { method: 'POST', headers: asPerson(token), body: '{"decision":"approve"}' });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { code: string }).code).toBe('approval_unknown');

      const approved = await fetch(`${url}/${run}.1`, { method: 'POST', headers: asPerson(token), body: '{"decision":"approve"}' });
      expect(approved.status).toBe(200);
      expect(await approved.json()).toEqual({ answered: [`${run}.1`], decision: 'approve' });
      // An answer stays as given.
      expect((await fetch(`${url}/${run}.1`, { method: 'POST', headers: asPerson(token), body: '{"decision":"refuse"}' })).status).toBe(409);

      const resumed = await call(proxy.client, 'resume_run', { run });
      expect(resumed.isError).toBe(false);
      const output = JSON.parse(resumed.text) as { moved: string; text: string };
      expect(output.text).toBe('note a');
      expect(output.moved).toMatch(/Successfully moved/u);
      expect(existsSync(from)).toBe(false);
      expect(await readFile(to, 'utf8')).toBe('note a');

      // Once resumed, the run is gone: for the model and for the person.
      const again = await call(proxy.client, 'resume_run', { run });
      expect(again.text).toMatch(/^error resume_token_unknown: No run "q/u);
      expect((await call(proxy.client, 'resume_run', { run: 'qmadeup12' })).text).toMatch(/^error resume_token_unknown/u);
      expect(((await (await fetch(url, { headers: asPerson(token) })).json()) as { approvals: unknown[] }).approvals).toEqual([]);
    } finally {
      await proxy.close();
    }
    // The proxy removes its endpoint file as it stops.
    expect((await readdir(approvalsDir)).filter((name) => name.endsWith('.json'))).toEqual([]);
  }, 90_000);

  it('refused with `toolweave approvals refuse`: the run goes on as the refusal, with the reason, and nothing moves; a direct call is told how to wait, and a script waits and resumes', async () => {
    const proxy = await proxyOverStdio(['--config', config], { env: env() });
    try {
      const { from, to } = await note('b');
      const paused = await call(proxy.client, 'archive_note', { from, to });
      const run = runIdOf(paused.text);

      const nobody = await runBin(['approvals', 'list'], undefined, { TOOLWEAVE_APPROVALS_DIR: path.join(project.root, 'no-proxies') });
      expect([nobody.code, nobody.stderr]).toEqual([1, expect.stringContaining('no proxy with approvals: queue is running for this user')]);
      const listed = await runBin(['approvals', 'list'], undefined, env());
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(`${run}.1  waiting`);
      expect(listed.stdout).toContain('Tool: move_file');
      const refused = await runBin(['approvals', 'refuse', run, '--reason', 'not before the release'], undefined, env());
      expect(refused.stderr).toBe('');
      expect(refused.stdout).toContain(`refused ${run}.1`);
      expect(refused.code).toBe(0);
      const twice = await runBin(['approvals', 'approve', run], undefined, env());
      expect(twice.code).toBe(1);
      expect((await runBin(['approvals', 'approve', 'qnothere1'], undefined, env())).stderr).toContain('no running proxy has an approval "qnothere1" waiting');

      const resumed = await call(proxy.client, 'resume_run', { run });
      expect(resumed.isError).toBe(true);
      expect(resumed.text).toMatch(/approval_rejected/u);
      expect(resumed.text).toContain('not before the release');
      expect(existsSync(from)).toBe(true);
      expect(existsSync(to)).toBe(false);

      const direct = await call(proxy.client, 'move_file', { source: from, destination: to });
      expect(direct.text).toMatch(/^error approval_rejected: .*a direct call cannot wait for them\. Call it through run_pipeline \(one step\) or run_js/u);
      expect(existsSync(from)).toBe(true);

      // A script waits too: it ends at the call, and resume_run runs it again from its start.
      const script = await call(proxy.client, 'run_js', { intention: 'move', code: `const r = await callTool('move_file', { source: ${JSON.stringify(from)}, destination: ${JSON.stringify(to)} }); return r.error ? r.error.message : 'moved at ' + Math.floor(Math.random() * 1000);` });
      expect(script.text).toMatch(/^error approval_pending: /u);
      const scriptRun = runIdOf(script.text);
      expect(existsSync(from)).toBe(true);
      expect((await runBin(['approvals', 'approve', scriptRun], undefined, env())).code).toBe(0);
      const moved = await call(proxy.client, 'resume_run', { run: scriptRun });
      expect(moved.isError).toBe(false);
      expect(moved.text).toMatch(/moved at \d+/u);
      expect(existsSync(from)).toBe(false);
      expect(await readFile(to, 'utf8')).toBe('note b');
    } finally {
      await proxy.close();
    }
  }, 90_000);
});

describe('approvals: queue, over Streamable HTTP with two sessions', () => {
  it("one session filling its share of the queue is refused approvals_full; another session's first write still waits for the person", async () => {
    // The queue holds 21 runs in all; each session's share is the default, 20.
    const shared = path.join(project.root, 'toolweave-shared.json');
    const base = JSON.parse(await readFile(config, 'utf8')) as Record<string, unknown>;
    await writeFile(shared, JSON.stringify({ ...base, approvals: { mode: 'queue', maxPending: 21 } }));
    const proxy = await proxyOverHttp(['--config', shared], env());
    const alice = await httpClient(proxy.url);
    const bob = await httpClient(proxy.url);
    const write = (n: string) => ({ steps: [{ id: 'archive', tool: 'move_file', args: { source: path.join(project.root, `${n}.txt`), destination: path.join(project.root, 'archive', `${n}.txt`) } }] });
    try {
      const answers: TextAnswer[] = [];
      for (let i = 0; i < 21; i++) answers.push(await call(alice, 'run_pipeline', write(`alice-${i}`)));
      expect(answers.slice(0, 20).every((a) => /^error approval_pending: /u.test(a.text))).toBe(true);
      expect(answers[20].text).toMatch(/approvals_full/u);
      expect(answers[20].text).toMatch(/this session's share of the approvals queue is full \(20 of its runs wait\)/u);
      // Bob's first write is asked about, not refused.
      const bobs = await call(bob, 'run_pipeline', write('bob-0'));
      expect(bobs.text).toMatch(/^error approval_pending: /u);
      const { url, token } = await endpoint();
      const listed = (await (await fetch(url, { headers: asPerson(token) })).json()) as { approvals: unknown[] };
      expect(listed.approvals).toHaveLength(21);
    } finally {
      await alice.close();
      await bob.close();
      await proxy.stop();
    }
  }, 90_000);

  it("a session cannot resume another's run; run_pipeline pauses and resumes the same way, at each call that waits", async () => {
    const proxy = await proxyOverHttp(['--config', config], env());
    const alice = await httpClient(proxy.url);
    const bob = await httpClient(proxy.url);
    try {
      const { from, to } = await note('c');
      const paused = await call(alice, 'run_pipeline', { steps: [{ id: 'archive', tool: 'move_file', args: { source: from, destination: to } }] });
      expect(paused.text).toMatch(/^error approval_pending: /u);
      const run = runIdOf(paused.text);
      const { url, token } = await endpoint();
      expect((await fetch(`${url}/${run}`, { method: 'POST', headers: asPerson(token), body: '{"decision":"approve"}' })).status).toBe(200);

      // Bob has the id (a model may leak it) but not the run: it reads as unknown, and stays Alice's.
      expect((await call(bob, 'resume_run', { run })).text).toMatch(/^error resume_token_unknown/u);
      expect(existsSync(from)).toBe(true);
      const resumed = await call(alice, 'resume_run', { run });
      expect(resumed.isError).toBe(false);
      expect(existsSync(to)).toBe(true);

      // Two calls that each wait: the run pauses at the first, then, resumed, at the second, under a new id.
      const { from: first, to: middle } = await note('d');
      const last = path.join(project.root, 'archive', 'd-final.txt');
      const steps = [
        { id: 'archive', tool: 'move_file', args: { source: first, destination: middle } },
        { id: 'rename', tool: 'move_file', args: { source: middle, destination: last } },
      ];
      const one = runIdOf((await call(alice, 'run_pipeline', { steps })).text);
      expect((await fetch(`${url}/${one}`, { method: 'POST', headers: asPerson(token), body: '{"decision":"approve"}' })).status).toBe(200);
      const pausedAgain = await call(alice, 'resume_run', { run: one });
      expect(pausedAgain.text).toMatch(/^error approval_pending: .*\n- q[A-Za-z0-9]+\.1: tool "move_file", step "rename"/u);
      const two = runIdOf(pausedAgain.text);
      expect(two).not.toBe(one);
      expect(existsSync(middle)).toBe(true);
      expect((await fetch(`${url}/${two}.1`, { method: 'POST', headers: asPerson(token), body: '{"decision":"approve"}' })).status).toBe(200);
      expect((await call(alice, 'resume_run', { run: two })).isError).toBe(false);
      expect([existsSync(first), existsSync(middle), await readFile(last, 'utf8')]).toEqual([false, false, 'note d']);
    } finally {
      await alice.close();
      await bob.close();
      await proxy.stop();
    }
  }, 90_000);
});
