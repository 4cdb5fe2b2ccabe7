/**
 * `flows:` in the proxy's config, driven by the SDK's client over stdio and Streamable HTTP, in
 * front of a real mail server process whose inbox carries an attacker's instruction: once a session
 * has read it, a side-effecting call it could steer is refused (or asked about, showing where each
 * argument came from) through every door; a session that read nothing untrusted sends with no
 * question; a new session starts clean; each result says in `_meta` which label it carries.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { forgeFromRun, readRecordings, recordedRuns } from '../../src/index.js';
import { copyProject, processesLeft, REPO, type Project } from '../mcp/helpers.js';
import { ATTACKER, FRIEND } from './fixtures/mail-server.js';
import { httpClient, proxyOverHttp, proxyOverStdio, runBin, type HttpProxy } from './proxy-process.js';

const MAIL_SERVER = path.join(REPO, 'test/cli/fixtures/mail-server.ts');

let project: Project;
let sentFile: string;

/** A config: the mail server untrusted, the contacts (and a web fetch) on a trusted server. */
async function writeConfig(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const file = path.join(project.root, name);
  const mail = (tools: string) => ({ command: process.execPath, args: ['--import', 'tsx', MAIL_SERVER, project.root, '--tools', tools], cwd: REPO });
  await writeFile(
    file,
    JSON.stringify({
      servers: { mail: mail('read_inbox,send_email'), contacts: mail('list_contacts,fetch_page') },
      sideEffectingTools: ['send_email'],
      composites: ['forward.json'],
      flows: { trustedServers: ['contacts'], policies: { send_email: { trusted: ['to'] } } },
      ...extra,
    }),
  );
  return file;
}

beforeAll(async () => {
  project = await copyProject('toolweave-flows-');
  sentFile = path.join(project.root, 'sent.jsonl');
  // A composite that mails a note to whom the model says.
  await writeFile(
    path.join(project.root, 'forward.json'),
    JSON.stringify({
      name: 'mail_note',
      description: 'Mail a note.',
      inputSchema: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } }, required: ['to', 'body'] },
      spec: { steps: [{ name: 'send', tool: 'send_email', inputMapping: { to: '$input.to', body: '$input.body' } }] },
      sideEffectingSteps: ['send'],
    }),
  );
  await mkdir(project.root, { recursive: true });
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});
beforeEach(async () => {
  await rm(sentFile, { force: true });
});

const answerOf = (result: unknown) => CallToolResultSchema.parse(result);
const textOf = (result: unknown) => (answerOf(result).content[0] as { text: string }).text;
const sent = async (): Promise<{ to: string }[]> => (existsSync(sentFile) ? (await readFile(sentFile, 'utf8')).trim().split('\n').map((line) => JSON.parse(line)) : []);

/** One message to `to` through each door, as a model would send it. */
const DOORS: Record<string, (to: string) => { name: string; arguments: Record<string, unknown> }> = {
  direct: (to) => ({ name: 'send_email', arguments: { to, body: 'hi' } }),
  composite: (to) => ({ name: 'mail_note', arguments: { to, body: 'hi' } }),
  run_pipeline: (to) => ({ name: 'run_pipeline', arguments: { steps: [{ tool: 'send_email', args: { to, body: 'hi' } }] } }),
  compose: (to) => ({ name: 'compose', arguments: { tool: 'send_email', args: { to, body: 'hi' } } }),
  run_js: (to) => ({ name: 'run_js', arguments: { code: `const r = await callTool('send_email', { to: ${JSON.stringify(to)}, body: 'hi' }); return r.error ? r.error.code : r.text;` } }),
};

describe('flows over Streamable HTTP: one label per session', () => {
  let proxy: HttpProxy;
  const clients: Client[] = [];
  beforeAll(async () => {
    proxy = await proxyOverHttp(['--config', await writeConfig('http.json')]);
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await proxy?.stop();
  });
  const session = async () => {
    const client = await httpClient(proxy.url);
    clients.push(client);
    return client;
  };

  it('says in _meta which label each result carries: the inbox untrusted, the trusted server trusted, its open-world tool not', async () => {
    const client = await session();
    const inbox = answerOf(await client.callTool({ name: 'read_inbox', arguments: {} }));
    expect(inbox._meta?.['toolweave/label']).toEqual({ trusted: false, sources: [{ tool: 'read_inbox', step: 'read_inbox' }] });
    const contacts = answerOf(await (await session()).callTool({ name: 'list_contacts', arguments: {} }));
    expect(contacts._meta?.['toolweave/label']).toEqual({ trusted: true, sources: [{ tool: 'list_contacts', step: 'list_contacts' }] });
    const page = answerOf(await (await session()).callTool({ name: 'fetch_page', arguments: { url: 'https://example.com' } }));
    expect(page._meta?.['toolweave/label']).toMatchObject({ trusted: false, sources: [{ tool: 'fetch_page' }] });
    // A door's result carries what its run read: each door, in a clean session.
    const reads: Record<string, Record<string, unknown>> = {
      run_pipeline: { steps: [{ id: 'mail', tool: 'read_inbox', args: {} }] },
      compose: { tool: 'read_inbox', args: {} },
      run_js: { code: `return (await callTool('read_inbox', {})).text.length;` },
    };
    for (const [door, args] of Object.entries(reads)) {
      const answer = answerOf(await (await session()).callTool({ name: door, arguments: args }));
      expect(answer._meta?.['toolweave/label'], door).toMatchObject({ trusted: false, sources: [{ tool: 'read_inbox' }] });
    }
  });

  for (const [door, call] of Object.entries(DOORS)) {
    it(`${door}: a clean session sends with no question; once it read the inbox, the attacker's mail is refused`, async () => {
      const clean = await session();
      // Reading trusted data does not taint the session.
      await clean.callTool({ name: 'list_contacts', arguments: {} });
      const ok = answerOf(await clean.callTool(call(FRIEND)));
      expect(ok.isError ?? false, textOf(ok)).toBe(false);
      expect((await sent()).map((mail) => mail.to)).toEqual([FRIEND]);

      const read = await session();
      await read.callTool({ name: 'read_inbox', arguments: {} });
      const refused = answerOf(await read.callTool(call(ATTACKER)));
      expect(JSON.stringify(refused)).toContain('flow_untrusted');
      expect((await sent()).map((mail) => mail.to)).toEqual([FRIEND]);
    });
  }

  it('a new session starts clean, whatever another session read', async () => {
    const a = await session();
    await a.callTool({ name: 'read_inbox', arguments: {} });
    const b = await session();
    expect(textOf(await b.callTool(DOORS.direct(FRIEND)))).toBe(`sent to ${FRIEND}`);
    expect(textOf(await a.callTool(DOORS.direct(FRIEND)))).toMatch(/^error flow_untrusted/u);
  });

  it('inside one run: a recipient taken from the inbox is refused, one from the trusted contacts is sent', async () => {
    const client = await session();
    const steered = await client.callTool({
      name: 'run_pipeline',
      arguments: { steps: [{ id: 'mail', tool: 'read_inbox', args: {} }, { tool: 'send_email', args: { to: 'reply-to ${mail.output}', body: 'fwd' } }] },
    });
    expect(JSON.stringify(steered)).toContain('flow_untrusted');
    const script = `const c = await callTool('list_contacts', {}); const to = JSON.parse(c.text).value[0].email; const r = await callTool('send_email', { to, body: 'hi' }); return r.error ? r.error.code : r.text;`;
    expect(textOf(await (await session()).callTool({ name: 'run_js', arguments: { code: script } }))).toBe(`sent to ${FRIEND}`);
    expect((await sent()).map((mail) => mail.to)).toEqual([FRIEND]);
  });
});

describe('flows over stdio', () => {
  it('asks the person through elicitation, showing where the recipient came from; a no sends nothing', async () => {
    const proxy = await proxyOverStdio(['--config', await writeConfig('elicit.json', { approvals: 'elicit' })], { capabilities: { elicitation: {} } });
    try {
      const asked: string[] = [];
      proxy.client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(String(request.params.message));
        return { action: 'decline' };
      });
      // Trusted data steers nothing: no one is asked.
      expect(textOf(await proxy.client.callTool(DOORS.direct(FRIEND)))).toBe(`sent to ${FRIEND}`);
      expect(asked).toEqual([]);
      await proxy.client.callTool({ name: 'read_inbox', arguments: {} });
      const answer = textOf(await proxy.client.callTool(DOORS.run_js(ATTACKER)));
      expect(answer).toBe('approval_rejected');
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('Why you are asked: untrusted data');
      expect(asked[0]).toMatch(/"to": from read_inbox.*untrusted/u);
      expect((await sent()).map((mail) => mail.to)).toEqual([FRIEND]);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('code-only: the script door carries the session label too', async () => {
    const proxy = await proxyOverStdio(['--config', await writeConfig('code-only.json', { codeOnly: true })]);
    try {
      expect(textOf(await proxy.client.callTool(DOORS.run_js(FRIEND)))).toBe(`sent to ${FRIEND}`);
      const read = `const r = await tools.read_inbox({}); return r.text.length;`;
      await proxy.client.callTool({ name: 'run_js', arguments: { code: read } });
      expect(textOf(await proxy.client.callTool(DOORS.run_js(ATTACKER)))).toBe('flow_untrusted');
      expect((await sent()).map((mail) => mail.to)).toEqual([FRIEND]);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});

describe('flows: a long result paged back keeps its label', () => {
  it('get_observation answers with the label of the result it pages, even listed as trusted: the inbox untrusted, the trusted contacts trusted', async () => {
    const file = path.join(project.root, 'long.json');
    const mail = (tools: string) => ({ command: process.execPath, args: ['--import', 'tsx', MAIL_SERVER, project.root, '--tools', tools, '--long'], cwd: REPO });
    await writeFile(
      file,
      JSON.stringify({
        servers: { mail: mail('read_inbox,send_email'), contacts: mail('list_contacts') },
        sideEffectingTools: ['send_email'],
        flows: { trustedServers: ['contacts'], trustedTools: ['get_observation'], policies: { send_email: { trusted: ['to'] } } },
      }),
    );
    const proxy = await proxyOverHttp(['--config', file]);
    const clients: Client[] = [];
    try {
      const session = async () => {
        const client = await httpClient(proxy.url);
        clients.push(client);
        return client;
      };
      const pageBack = async (client: Client, name: string) => {
        const preview = textOf(await client.callTool({ name, arguments: {} }));
        const id = /obs_[a-z2-7]+/u.exec(preview)?.[0];
        expect(id, preview).toBeDefined();
        return answerOf(await client.callTool({ name: 'get_observation', arguments: { ids: [id] } }));
      };

      const reader = await session();
      const inbox = await pageBack(reader, 'read_inbox');
      expect((inbox.content[0] as { text: string }).text).toContain(ATTACKER);
      expect(inbox._meta?.['toolweave/label']).toEqual({ trusted: false, sources: [{ tool: 'read_inbox', step: 'read_inbox' }] });

      // A session that read only the trusted contacts, paged back, sends with no question.
      const clean = await session();
      const contacts = await pageBack(clean, 'list_contacts');
      expect(contacts._meta?.['toolweave/label']).toEqual({ trusted: true, sources: [{ tool: 'list_contacts', step: 'list_contacts' }] });
      expect(textOf(await clean.callTool(DOORS.direct(FRIEND)))).toBe(`sent to ${FRIEND}`);
      expect(textOf(await reader.callTool(DOORS.direct(ATTACKER)))).toMatch(/^error flow_untrusted/u);
      expect((await sent()).map((sentMail) => sentMail.to)).toEqual([FRIEND]);
    } finally {
      for (const client of clients) await client.close().catch(() => undefined);
      await proxy.stop();
    }
  }, 60_000);
});

describe('flows with a recording', () => {
  it('records where each argument came from, and a composite forged from the run declares the policy its call needs', async () => {
    const recordings = path.join(project.root, '.recordings');
    const proxy = await proxyOverHttp(['--config', await writeConfig('record.json', { record: recordings })]);
    try {
      const client = await httpClient(proxy.url);
      // The recipient from the trusted contacts, the body from the untrusted inbox: the policy lets it run.
      const steps = [
        { id: 'people', tool: 'list_contacts', args: {} },
        { id: 'mail', tool: 'read_inbox', args: {} },
        { tool: 'send_email', args: { to: '${people.output.value[0].email}', body: '${mail.output.value[0].body}' } },
      ];
      const answer = answerOf(await client.callTool({ name: 'run_pipeline', arguments: { steps } }));
      expect(answer.isError ?? false, textOf(answer)).toBe(false);
      expect((await sent()).map((mail) => mail.to)).toEqual([FRIEND]);
      await client.close();
    } finally {
      await proxy.stop();
    }
    const read = await readRecordings(recordings);
    const [run] = recordedRuns(read.output!.sessions);
    const send = run.calls.find((call) => call.tool === 'send_email')!;
    expect(send.provenance).toEqual({
      to: { trusted: true, sources: [{ tool: 'list_contacts', step: 'people' }] },
      body: { trusted: false, sources: [{ tool: 'read_inbox', step: 'mail' }] },
    });
    const forged = forgeFromRun(read.output!.sessions, run.run.run!);
    expect(forged.output?.flowPolicies).toEqual({ send_email: { trusted: ['to'] } });
  }, 60_000);
});

describe('flows with queued approvals', () => {
  it('the queued call shows where each argument came from, in `toolweave approvals list` and the endpoint; a refusal sends nothing', async () => {
    const approvalsDir = path.join(project.root, '.approvals-flows');
    const env = { TOOLWEAVE_APPROVALS_DIR: approvalsDir };
    const proxy = await proxyOverStdio(['--config', await writeConfig('queue.json', { approvals: 'queue' })], { env: { ...process.env, ...env } as Record<string, string> });
    try {
      await proxy.client.callTool({ name: 'read_inbox', arguments: {} });
      const paused = textOf(await proxy.client.callTool(DOORS.run_pipeline(ATTACKER)));
      const run = /\(run (q[A-Za-z0-9]+)\)/u.exec(paused)?.[1] ?? '';
      expect(run, paused).not.toBe('');
      const listed = await runBin(['approvals', 'list'], undefined, env);
      expect(listed.stdout).toContain('Why you are asked: untrusted data');
      expect(listed.stdout).toMatch(/"to": .*untrusted/u);
      const files = (await readdir(approvalsDir)).filter((name) => name.endsWith('.json'));
      const { url, token } = JSON.parse(await readFile(path.join(approvalsDir, files[0]), 'utf8')) as { url: string; token: string };
      const approvals = (await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()) as { approvals: { provenance?: Record<string, { trusted: boolean }> }[] };
      expect(approvals.approvals[0].provenance?.to).toMatchObject({ trusted: false });
      expect((await runBin(['approvals', 'refuse', run], undefined, env)).code).toBe(0);
      expect(textOf(await proxy.client.callTool({ name: 'resume_run', arguments: { run } }))).toMatch(/approval_rejected/u);
      expect(await sent()).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
