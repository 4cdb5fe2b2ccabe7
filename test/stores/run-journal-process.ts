/**
 * One replica of a host whose approvals wait for a person, run as its own process by the
 * two-process journal test. Every replica builds the same door `notify` (read, then a
 * side-effecting send, then after) through a gate with the Redis journal; each tool counts its
 * runs in Redis under `effects:<label>:<tool>`, so the test counts them across processes.
 *
 *   pause <port> <label> <session>: runs the door (the approval of `send` is pending); prints the result.
 *   straight <port> <label> <session>: runs the door through a gate that approves at once; prints the result.
 *   resume <port> <label> <session> <token> <leaseMs>: resumes with one approval; prints the result.
 *   hang <port> <label> <session> <token> <leaseMs>: resumes with one approval, but `send` never
 *     ends once it has started; prints `started` then, and waits to be killed.
 */
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { ComposableToolBuilder, createStepGate, resumeRun, type ITool } from '../../src/index.js';
import { createRedisRunJournal } from '../../src/stores/redis.js';
import { tool } from '../helpers/tools.js';

const [role, port, label, session, token, leaseMs] = process.argv.slice(2);
const client = new Redis({ host: '127.0.0.1', port: Number(port), enableOfflineQueue: false });
client.on('error', () => {});
// The tools count their runs through this client: let it connect first.
await once(client, 'ready');
const context = { sessionData: { sessionId: session } };

/** Count a run of `name` in Redis, where every process sees it. */
const ran = (name: string) => client.incr(`effects:${label}:${name}`);

const read = tool('read', async (a) => (await ran('read'), { text: `note ${String(a.id)}` }));
const send = tool(
  'send',
  async (a) => {
    await ran('send');
    if (role !== 'hang') return { sent: a.text };
    process.stdout.write('started\n');
    // Keep the process alive however the gate's timers stand: it ends only when it is killed.
    setInterval(() => {}, 60_000);
    return new Promise(() => {});
  },
  { hasSideEffects: true },
);
const after = tool('after', async (a) => (await ran('after'), { done: a.sent }));
const tools = new Map<string, ITool>([read, send, after].map((t) => [t.name, t]));

const gate = createStepGate({
  resolve: (name) => tools.get(name),
  names: () => tools.keys(),
  approvals: { requestApproval: () => (role === 'straight' ? { approved: true } : { pending: true }) },
  journal: createRedisRunJournal({ client, keyPrefix: 'test:two:' }),
  pauses: { leaseMs: Number(leaseMs ?? 600_000) },
});
const builder = new ComposableToolBuilder(gate);
builder.bind({ sideEffectingTools: ['send'] });
const door = builder.build('notify', 'read a note and send it', { type: 'object' }, {
  steps: [
    { name: 'read', tool: 'read', inputMapping: { id: '$input.id' } },
    { name: 'send', tool: 'send', inputMapping: { text: '$prev.text' } },
    { name: 'after', tool: 'after', inputMapping: { sent: '$prev.sent' } },
  ],
}) as ITool;

const result = role === 'pause' || role === 'straight' ? await door.execute({ id: 5 }, context) : await resumeRun(door, token, [{ approved: true }], context);
process.stdout.write(JSON.stringify({ pid: process.pid, result }));
client.disconnect();
