/**
 * `toolweave check` with `flows`: before anything runs, the matrix a person reviews (which tools
 * give untrusted output, what each side-effecting tool needs trusted and what a violation does,
 * what feeds each argument of a composite's side-effecting steps), against real mail server
 * processes; a name in `flows` that matches nothing fails the check; settings `approvals: none`
 * makes moot are said.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, processesLeft, REPO, type Project } from '../mcp/helpers.js';
import { runBin } from './proxy-process.js';

const MAIL_SERVER = path.join(REPO, 'test/cli/fixtures/mail-server.ts');

let project: Project;
beforeAll(async () => {
  project = await copyProject('toolweave-check-flows-');
  // Mails the inbox to the first contact, when the input says so.
  await writeFile(
    path.join(project.root, 'digest.json'),
    JSON.stringify({
      name: 'mail_digest',
      description: 'Mail the inbox to a contact.',
      inputSchema: { type: 'object', properties: { send: { type: 'boolean' } } },
      spec: {
        steps: [
          { name: 'inbox', tool: 'read_inbox', args: {} },
          { name: 'people', tool: 'list_contacts', args: {} },
          { name: 'send', tool: 'send_email', when: '$input.send', inputMapping: { to: '$steps.people[0].email', subject: 'Digest', body: 'Today: ${$steps.inbox}' } },
        ],
      },
      sideEffectingSteps: ['send'],
    }),
  );
  // Answers every sender of the inbox: the recipients come from the mails themselves.
  await writeFile(
    path.join(project.root, 'thanks.json'),
    JSON.stringify({
      name: 'thank_senders',
      description: 'Thank everyone who wrote.',
      inputSchema: { type: 'object', properties: {} },
      spec: {
        steps: [
          { name: 'inbox', tool: 'read_inbox', args: {} },
          { name: 'each', combinator: 'for_each', items: '$steps.inbox', template: { name: 'reply', tool: 'send_email', inputMapping: { to: '{item}', body: 'Thanks' } } },
        ],
      },
      sideEffectingSteps: ['reply'],
    }),
  );
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

/** The sample: the mail server untrusted; the contacts (and a web fetch, open world) on a trusted one; a policy on send_email. */
async function writeConfig(name: string, flows: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  const file = path.join(project.root, name);
  const mail = (tools: string) => ({ command: process.execPath, args: ['--import', 'tsx', MAIL_SERVER, project.root, '--tools', tools], cwd: REPO });
  await writeFile(
    file,
    JSON.stringify({
      servers: { mail: mail('read_inbox,send_email'), contacts: mail('list_contacts,fetch_page') },
      sideEffectingTools: ['send_email'],
      composites: ['digest.json', 'thanks.json'],
      flows: { trustedServers: ['contacts'], policies: { send_email: { trusted: ['to'] } }, ...flows },
      ...extra,
    }),
  );
  return file;
}

const SERVERS_AND_COMPOSITES = ['ok   server mail: 2 tools', 'ok   server contacts: 2 tools', 'ok   composite mail_digest: 0 examples', 'ok   composite thank_senders: 0 examples'];
const SOURCES = [
  'ok   flows untrusted sources (3; a session that read one steers every argument its model gives from then on): mail: read_inbox, send_email; contacts: fetch_page (openWorldHint)',
  'ok   flows trusted sources: contacts: list_contacts',
];

describe('toolweave check, flows', () => {
  it('lists the untrusted sources, what each side effect needs trusted, and what feeds each composite effect', async () => {
    const run = await runBin(['check', '--config', await writeConfig('sample.json', {}, { approvals: 'elicit' })]);
    expect(run.stdout.trim().split('\n')).toEqual([
      ...SERVERS_AND_COMPOSITES,
      ...SOURCES,
      'ok   flows effect send_email (mail): to must be trusted, else asks; any other argument (subject, body) is free: any of the 3 untrusted sources can steer it; what decides the call (inside a run) must be trusted, else asks',
      // The recipient is the user's own contact; the body is the inbox; the model decides whether it is sent.
      'ok   flows composite mail_digest, step "send" calls send_email: to (must be trusted) ← nothing untrusted; subject ← nothing untrusted; body ← step "inbox" (read_inbox); what decides the call (must be trusted) ← $input (the session)',
      'ok   flows composite thank_senders, step "reply" calls send_email: to (must be trusted) ← step "inbox" (read_inbox); body ← nothing untrusted; what decides the call (must be trusted) ← step "inbox" (read_inbox) (it asks whenever the steps feeding what must be trusted have run)',
    ]);
    expect(run.code).toBe(0);
  });

  it('warns when a forged composite was recorded with untrusted data where the config requires trusted data', async () => {
    const forged = (name: string, trusted: string[]) => ({
      name,
      description: 'Forged from a recording.',
      inputSchema: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
      spec: { steps: [{ name: 'send', tool: 'send_email', inputMapping: { to: '$input.to', body: 'hi' } }] },
      sideEffectingSteps: ['send'],
      flowPolicies: { send_email: { trusted } },
    });
    await writeFile(path.join(project.root, 'forged-steered.json'), JSON.stringify(forged('forward_steered', ['body'])));
    await writeFile(path.join(project.root, 'forged-clean.json'), JSON.stringify(forged('forward_clean', ['body', 'to'])));
    const run = await runBin(['check', '--config', await writeConfig('forged.json', {}, { approvals: 'elicit', composites: ['forged-steered.json', 'forged-clean.json'] })]);
    const warned = run.stdout.split('\n').filter((line) => line.startsWith('warn flows composite forward_'));
    expect(warned).toEqual([
      `warn flows composite forward_steered (${path.join(project.root, 'forged-steered.json')}): its calls of send_email were recorded with data from untrusted sources where the config's policy requires trusted data (to): each run like the recorded ones asks`,
    ]);
    expect(run.code).toBe(0);
  });

  it('warns, without failing, that with approvals none every violation is refused', async () => {
    const run = await runBin(['check', '--config', await writeConfig('refusing.json', { policies: { send_email: { trusted: '*', control: false, readersInclude: 'to' } } })]);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toEqual([
      ...SERVERS_AND_COMPOSITES,
      ...SOURCES,
      'ok   flows effect send_email (mail): every argument (to, subject, body) must be trusted, else refused; what decides the call is free; data goes only to a to its readers include, else refused',
      'warn flows composite mail_digest, step "send" calls send_email: to (must be trusted) ← nothing untrusted; subject (must be trusted) ← nothing untrusted; body (must be trusted) ← step "inbox" (read_inbox); what decides the call ← $input (the session) (refused whenever the steps feeding what must be trusted have run)',
      'warn flows composite thank_senders, step "reply" calls send_email: to (must be trusted) ← step "inbox" (read_inbox); body (must be trusted) ← nothing untrusted; what decides the call ← step "inbox" (read_inbox) (refused whenever the steps feeding what must be trusted have run)',
      'warn flows onViolation is ask (the default) but approvals is none: no one can be asked, so every violation is refused; set approvals to elicit or queue to ask, or onViolation: refuse to say it',
    ]);
    expect(run.code).toBe(0);
  });

  it('fails on every name that matches nothing, one line each, and on askEveryEffect that no one can answer', async () => {
    const file = await writeConfig('typos.json', {
      trustedServers: ['contacts', 'contact'],
      trustedTools: ['list_contact', 'get_observation'],
      declassifiers: ['mail_digest'],
      untrustedFields: { read_inbx: ['*.subject'] },
      readers: { run_js: ['me'] },
      policies: { send_emial: {}, send_email: { trusted: ['to', 'recipient'], readersInclude: 'cc' }, read_inbox: {} },
      onViolation: 'refuse',
      askEveryEffect: true,
    });
    const run = await runBin(['check', '--config', file]);
    const flowsLines = run.stdout.trim().split('\n').filter((line) => /^(FAIL|warn) flows (?!composite)/u.test(line));
    expect(flowsLines).toEqual([
      'FAIL flows trustedServers names "contact", which is not a server of this config (its servers: mail, contacts)',
      'FAIL flows policies names "send_emial", which no server serves',
      'FAIL flows trustedTools names "list_contact", which no server serves',
      'warn flows trustedTools names "get_observation", the proxy\'s pager: what it pages back keeps the label it was stored with, so this does nothing',
      'FAIL flows declassifiers names "mail_digest", which is a door (a composite, a script or the proxy\'s own): the gate judges and labels the calls inside it, not the door; name the tools it calls',
      'FAIL flows untrustedFields names "read_inbx", which no server serves',
      'FAIL flows readers names "run_js", which is a door (a composite, a script or the proxy\'s own): the gate judges and labels the calls inside it, not the door; name the tools it calls',
      'FAIL flows policies.send_email.trusted names "recipient", which is not an argument of send_email (its arguments: to, subject, body)',
      'FAIL flows policies.send_email.readersInclude names "cc", which is not an argument of send_email (its arguments: to, subject, body)',
      'warn flows policies names "read_inbox", which is pure: pure calls are never refused for their inputs, so its policy does nothing',
      'FAIL flows askEveryEffect is set but approvals is none: no one can be asked, so side-effecting calls whose arguments are trusted run without a question; set approvals to elicit or queue',
    ]);
    // onViolation: refuse says what approvals none does anyway: no warning about it.
    expect(run.stdout).not.toContain('onViolation is ask');
    expect(run.code).toBe(1);
  });

  it('says, of a name no server serves, that a server that is not up may serve it', async () => {
    const file = await writeConfig('down.json', { policies: { send_emial: {} } }, { approvals: 'elicit' });
    const config = JSON.parse(await readFile(file, 'utf8')) as { servers: Record<string, unknown> };
    config.servers.gone = { command: 'no-such-command-toolweave-check-flows' };
    await writeFile(file, JSON.stringify(config));
    const run = await runBin(['check', '--config', file]);
    expect(run.stdout).toContain('FAIL server gone: upstream_unavailable');
    expect(run.stdout).toContain('FAIL flows policies names "send_emial", which no server serves (or one of server gone, which is not up)\n');
    expect(run.code).toBe(1);
  });

  it('says nothing of flows for a config without them', async () => {
    const file = path.join(project.root, 'plain.json');
    await writeFile(file, JSON.stringify({ servers: { mail: { command: process.execPath, args: ['--import', 'tsx', MAIL_SERVER, project.root], cwd: REPO } } }));
    const run = await runBin(['check', '--config', file]);
    expect(run.stdout.trim().split('\n')).toEqual(['ok   server mail: 4 tools']);
    expect(run.code).toBe(0);
  });
});
