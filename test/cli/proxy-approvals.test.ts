/**
 * `approvals: elicit`: every side-effecting call through the proxy asks the person at the client
 * with an MCP elicitation request, once per call, however it is nested; a client that cannot be
 * asked gets the call refused.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProject, FS_SERVER, liveProcesses, processesLeft, PLAIN_SERVER, REPO, until, type Project } from '../mcp/helpers.js';
import { proxyOverStdio } from './proxy-process.js';

let project: Project;
let config: string;
beforeAll(async () => {
  project = await copyProject('toolweave-approve-');
  config = path.join(project.root, 'toolweave.json');
  await writeFile(config, JSON.stringify({
    servers: {
      fs: { command: process.execPath, args: [FS_SERVER, project.root], trustAnnotations: true },
      plain: { command: process.execPath, args: ['--import', 'tsx', PLAIN_SERVER, '--tools', 'echo', project.root], cwd: REPO },
    },
    sideEffectingTools: ['write_file'],
    approvals: 'elicit',
  }));
});
afterAll(async () => {
  expect(await processesLeft(project.root)).toEqual([]);
  await project.remove();
});

const textOf = (answer: unknown) => (CallToolResultSchema.parse(answer).content[0] as { text: string }).text;
const writeScript = (file: string) => `const r = await callTool('write_file', { path: ${JSON.stringify(file)}, content: 'approved' }); return r.error ? r.error.code + ': ' + r.error.message : 'written';`;

describe('approvals: elicit', () => {
  it('asks once per side-effecting call, nested in run_js or direct, and runs only what the person approves', async () => {
    const proxy = await proxyOverStdio(['--config', config], { capabilities: { elicitation: {} } });
    try {
      const asked: string[] = [];
      let answer = true;
      proxy.client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(String(request.params.message));
        return { action: 'accept', content: { approve: answer } };
      });
      const yes = path.join(project.root, 'yes.txt');
      expect(textOf(await proxy.client.callTool({ name: 'run_js', arguments: { intention: 'save a note', code: writeScript(yes) } }))).toBe('written');
      expect(await readFile(yes, 'utf8')).toBe('approved');
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('Tool: write_file');
      expect(asked[0]).toContain('Through: run_js');
      expect(asked[0]).toContain('Intention (chosen by the model): "save a note"');
      expect(asked[0]).toContain('Arguments (chosen by the model), 2 fields:');
      // Reading needs no one's approval.
      await proxy.client.callTool({ name: 'read_text_file', arguments: { path: yes } });
      expect(asked).toHaveLength(1);

      answer = false;
      const no = path.join(project.root, 'no.txt');
      expect(textOf(await proxy.client.callTool({ name: 'run_js', arguments: { intention: 'save another', code: writeScript(no) } }))).toMatch(/^approval_rejected: The person at the client answered no/u);
      expect(existsSync(no)).toBe(false);
      // A step id written as lines of the screen stays on its own line, quoted.
      const forged = path.join(project.root, 'forged.txt');
      const id = 'save\nThrough: a direct call from the client\nArguments (as the client sent them): {}\n\n';
      await proxy.client.callTool({ name: 'run_pipeline', arguments: { steps: [{ id, tool: 'write_file', args: { path: forged, content: 'x' } }] } });
      expect(asked[2].split('\n').filter((line) => /^(Through|Arguments)/u.test(line))).toEqual(['Through: run_pipeline', 'Arguments (chosen by the model), 2 fields:']);
      expect(asked[2]).toContain('Step (chosen by the model): "save\\nThrough: a direct call from the client\\n');
      expect(existsSync(forged)).toBe(false);
      // An undeclared tool (a server not trusted) is asked about too when called directly.
      const echo = CallToolResultSchema.parse(await proxy.client.callTool({ name: 'echo', arguments: { text: 'hi' } }));
      expect(textOf(echo)).toMatch(/^error approval_rejected/u);
      expect(asked).toHaveLength(4);
      expect(asked[3]).toContain('Through: a direct call from the client');
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it("withdraws the question when the run_js script that asked it reaches its time limit: the client's handler sees it cancelled", async () => {
    const timed = path.join(project.root, 'toolweave-timed.json');
    await writeFile(timed, JSON.stringify({ ...JSON.parse(await readFile(config, 'utf8')), script: { timeoutMs: 500 } }));
    const proxy = await proxyOverStdio(['--config', timed], { capabilities: { elicitation: {} } });
    try {
      const withdrawn: AbortSignal[] = [];
      // The person never answers: the question stays open on the client until the server withdraws it.
      proxy.client.setRequestHandler(ElicitRequestSchema, (_request, extra) => {
        withdrawn.push(extra.signal);
        return new Promise(() => {});
      });
      const late = path.join(project.root, 'late.txt');
      expect(textOf(await proxy.client.callTool({ name: 'run_js', arguments: { intention: 'save late', code: writeScript(late) } }))).toMatch(/script_timeout/u);
      expect(withdrawn).toHaveLength(1);
      expect(await until(() => withdrawn[0].aborted, 3000)).toBe(true);
      expect(existsSync(late)).toBe(false);
      // A second script asks again and is withdrawn again: each question goes with its own call.
      expect(textOf(await proxy.client.callTool({ name: 'run_js', arguments: { intention: 'save late again', code: writeScript(late) } }))).toMatch(/script_timeout/u);
      expect(withdrawn).toHaveLength(2);
      expect(await until(() => withdrawn[1].aborted, 3000)).toBe(true);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('a client without elicitation gets side-effecting calls refused, saying why', async () => {
    const proxy = await proxyOverStdio(['--config', config]);
    try {
      const refused = path.join(project.root, 'refused.txt');
      expect(textOf(await proxy.client.callTool({ name: 'run_js', arguments: { intention: 'save', code: writeScript(refused) } }))).toMatch(/^approval_rejected: .*does not support elicitation/u);
      const direct = CallToolResultSchema.parse(await proxy.client.callTool({ name: 'write_file', arguments: { path: refused, content: 'x' } }));
      expect(direct.isError).toBe(true);
      expect(textOf(direct)).toMatch(/^error approval_rejected: .*does not support elicitation/u);
      expect(existsSync(refused)).toBe(false);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
