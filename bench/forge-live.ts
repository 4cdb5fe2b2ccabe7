/**
 * Forging from real traffic: sessions recorded through the real proxy (`toolweave mcp --record`)
 * in front of the real filesystem server, forged with `toolweave forge`, checked with
 * `toolweave check`, then served, and called on held-out sessions of the same task shapes.
 *
 * - Found: every shape seen in 3 training sessions or more is forged, and none seen in fewer.
 * - Checked: every forged file passes `toolweave check` against the live server.
 * - Same result: on held-out sessions, calling the forged composite (its input read off the
 *   recorded first calls through the spec's own `$input` mappings) answers what the recorded
 *   chain's last call answered.
 * - Round trips: the tool calls the held-out sessions made, and how many they would have made
 *   with the forged composites (each occurrence of a chain becomes one call).
 *
 * Run: npm run bench:forge-live
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { readRecordings, type CallRecord } from '../dist/index.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(REPO, 'dist/cli/toolweave.js');
const FS_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

/** One call of a task, as a client makes it. */
interface TaskCall {
  tool: string;
  args: Record<string, unknown>;
}

/** A task shape: the calls of its occurrence number `n`, in the project at `root`. */
interface Shape {
  name: string;
  calls(root: string, n: number): TaskCall[];
}

const MODULES = ['cache', 'orders', 'profile', 'report'];
const SHAPES: Record<string, Shape> = {
  // Back a module up: the write copies the read's whole text.
  backup: {
    name: 'read_text_file>write_file',
    calls: (root, n) => {
      const module = MODULES[n % MODULES.length];
      return [
        { tool: 'read_text_file', args: { path: `${root}/src/app/${module}.js` } },
        { tool: 'write_file', args: { path: `${root}/backup/${module}-${n}.js`, content: '$prev' } },
      ];
    },
  },
  // Follow a pointer file: it holds a folder's path, which is then listed.
  follow: {
    name: 'read_text_file>list_directory',
    calls: (root, n) => [
      { tool: 'read_text_file', args: { path: `${root}/pointers/${['adapters', 'app', 'src', 'test'][n % 4]}.txt` } },
      { tool: 'list_directory', args: { path: '$prev' } },
    ],
  },
  // Seen in two training sessions only: must not be forged.
  rare: {
    name: 'read_text_file>directory_tree',
    calls: (root, n) => [
      { tool: 'read_text_file', args: { path: `${root}/pointers/${['adapters', 'test'][n % 2]}.txt` } },
      { tool: 'directory_tree', args: { path: '$prev' } },
    ],
  },
};

/** Calls that feed nothing: what agents also do between tasks. */
function noise(root: string, n: number): TaskCall[] {
  const pick = [
    { tool: 'list_allowed_directories', args: {} },
    { tool: 'get_file_info', args: { path: `${root}/package.json` } },
    { tool: 'read_text_file', args: { path: `${root}/README.md`, head: 3 } },
    { tool: 'search_files', args: { path: `${root}/src`, pattern: `*${MODULES[n % MODULES.length]}*` } },
  ];
  return [pick[n % pick.length]];
}

/** Each session: the shapes it runs, in order (noise goes between them). */
const TRAINING: string[][] = [
  ['backup', 'follow'],
  ['follow', 'backup', 'rare'],
  ['backup'],
  ['follow', 'rare'],
  ['backup', 'backup'],
  [],
];
const HELD_OUT: string[][] = [['backup', 'follow'], ['follow', 'follow', 'backup'], ['backup']];

interface Proxy {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

function startProxy(args: string[], cwd: string): Promise<Proxy> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '127.0.0.1:0', ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the proxy did not start:\n${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /serving MCP over Streamable HTTP at (\S+)/u.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve({
          child,
          url: found[1],
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`the proxy exited (${code}):\n${stderr}`)));
  });
}

function runBin(args: string[], cwd: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => resolve({ code, out }));
  });
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'toolweave-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** The text of a tool result, and whether it is an error. */
async function call(client: Client, tool: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = CallToolResultSchema.parse(await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 }));
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return { text, isError: result.isError === true };
}

/** Play the sessions through a proxy recording to `dir`, one client session each. */
async function playSessions(sessions: string[][], root: string, dir: string, first: number): Promise<void> {
  const proxy = await startProxy(['--record', dir, '--trust-annotations', '--', process.execPath, FS_SERVER, root], root);
  try {
    let n = first;
    for (const shapes of sessions) {
      const client = await connect(proxy.url);
      try {
        for (const call_ of noise(root, n)) await call(client, call_.tool, call_.args);
        for (const shape of shapes) {
          let prev = '';
          for (const step of SHAPES[shape].calls(root, n)) {
            const args = Object.fromEntries(Object.entries(step.args).map(([key, value]) => [key, value === '$prev' ? prev : value]));
            const answer = await call(client, step.tool, args);
            if (answer.isError) throw new Error(`${step.tool} failed while recording: ${answer.text}`);
            prev = answer.text;
          }
          for (const call_ of noise(root, n + 1)) await call(client, call_.tool, call_.args);
          n++;
        }
      } finally {
        await client.close();
      }
    }
  } finally {
    await proxy.stop();
  }
}

interface ForgedFile {
  name: string;
  inputSchema: { properties?: Record<string, unknown> };
  spec: { steps: { name: string; tool: string; inputMapping?: Record<string, unknown> }[] };
}

/** The forged composite's input for one recorded occurrence of its chain, read through its `$input` mappings. */
function inputFor(forged: ForgedFile, calls: readonly CallRecord[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  forged.spec.steps.forEach((step, i) => {
    for (const [arg, source] of Object.entries(step.inputMapping ?? {})) {
      const found = typeof source === 'string' ? /^\$input\.(\w+)$/u.exec(source) : null;
      if (found) input[found[1]] = argsOf(calls[i])[arg];
    }
  });
  return input;
}

/** The occurrences of `tools` in order, back to back or with other calls between, in one session. */
function occurrences(calls: readonly CallRecord[], tools: readonly string[]): CallRecord[][] {
  const found: CallRecord[][] = [];
  for (let i = 0; i < calls.length; i++) {
    if (calls[i].tool !== tools[0]) continue;
    const chain = [calls[i]];
    for (let j = i + 1; j < calls.length && chain.length < tools.length; j++) {
      if (calls[j].tool === tools[chain.length]) chain.push(calls[j]);
      else if (calls[j].tool === tools[0]) break;
    }
    if (chain.length === tools.length && (tools.length < 2 || linked(chain))) found.push(chain);
  }
  return found;
}

/** A recorded call's arguments (recorded as given: an object for every call this bench makes). */
function argsOf(record: CallRecord): Record<string, unknown> {
  return typeof record.args === 'object' && record.args !== null ? (record.args as Record<string, unknown>) : {};
}

/** Whether each call of `chain` took a whole earlier output as one of its arguments. */
function linked(chain: readonly CallRecord[]): boolean {
  return chain.slice(1).every((record, i) => Object.values(argsOf(record)).includes(chain[i].output));
}

const root = await mkdtemp(path.join(os.tmpdir(), 'toolweave-forge-live-'));
try {
  const project = path.join(root, 'project');
  await cp(path.join(REPO, 'examples/fixtures/project'), project, { recursive: true });
  await mkdir(path.join(project, 'backup'));
  await mkdir(path.join(project, 'pointers'));
  for (const [name, target] of [['adapters', 'src/adapters'], ['app', 'src/app'], ['src', 'src'], ['test', 'test']]) {
    await writeFile(path.join(project, 'pointers', `${name}.txt`), path.join(project, target));
  }
  const training = path.join(root, 'training');
  const heldOut = path.join(root, 'held-out');
  await playSessions(TRAINING, project, training, 0);
  await playSessions(HELD_OUT, project, heldOut, 100);

  const forgedDir = path.join(root, 'forged');
  const forge = await runBin(['forge', training, '--out', forgedDir], root);
  console.log(`\n$ toolweave forge training --out forged\n${forge.out.trim()}`);
  const files = (await readdir(forgedDir).catch(() => [] as string[])).filter((name) => name.endsWith('.json')).sort();
  const forged = await Promise.all(files.map(async (name) => JSON.parse(await readFile(path.join(forgedDir, name), 'utf8')) as ForgedFile));
  const forgedShapes = forged.map((file) => file.spec.steps.map((step) => step.tool).join('>'));
  const trainingCounts = new Map<string, number>();
  for (const shapes of TRAINING) for (const shape of new Set(shapes)) trainingCounts.set(shape, (trainingCounts.get(shape) ?? 0) + 1);
  const expected = Object.entries(SHAPES).filter(([key]) => (trainingCounts.get(key) ?? 0) >= 3).map(([, shape]) => shape.name);
  const hits = expected.filter((name) => forgedShapes.includes(name));
  const falseSpecs = forgedShapes.filter((name) => !expected.includes(name));

  const config = path.join(root, 'toolweave.yaml');
  await writeFile(
    config,
    [
      'servers:',
      '  fs:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(FS_SERVER)}, ${JSON.stringify(project)}]`,
      '    trustAnnotations: true',
      'sideEffectingTools: [write_file]',
      'composites: [forged/*.json]',
      '',
    ].join('\n'),
  );
  const check = await runBin(['check', '--config', config], root);
  console.log(`\n$ toolweave check --config toolweave.yaml\n${check.out.trim()}`);

  // Held out: the recorded chains, and the forged composites called on the same inputs.
  const recorded = await readRecordings(heldOut);
  if (!recorded.success) throw new Error(`cannot read the held-out recordings: ${recorded.error}`);
  const sessions = recorded.output!.sessions;
  const served = await startProxy(['--config', config], root);
  let compared = 0;
  let same = 0;
  let chainCalls = 0;
  const mismatches: string[] = [];
  try {
    const client = await connect(served.url);
    try {
      for (const [i, file] of forged.entries()) {
        const tools = file.spec.steps.map((step) => step.tool);
        for (const session of sessions) {
          for (const chain of occurrences(session.calls, tools)) {
            compared++;
            chainCalls += chain.length;
            const answer = await call(client, file.name, inputFor(file, chain));
            const last = chain[chain.length - 1];
            if (!answer.isError && answer.text === String(last.output)) same++;
            else mismatches.push(`${forgedShapes[i]}: ${answer.text.slice(0, 120)}`);
          }
        }
      }
    } finally {
      await client.close();
    }
  } finally {
    await served.stop();
  }
  const heldOutCalls = sessions.reduce((sum, session) => sum + session.calls.length, 0);
  const withComposites = heldOutCalls - chainCalls + compared;

  console.log(`\nForging from traffic recorded through the proxy and the filesystem server (${TRAINING.length} training sessions, ${HELD_OUT.length} held out)`);
  console.log('| figure | value | target |');
  console.log('|---|---|---|');
  console.log(`| shapes found / seen in >= 3 sessions | ${hits.length} / ${expected.length} | all ${hits.length === expected.length ? 'ok' : 'MISSED'} |`);
  console.log(`| false specs | ${falseSpecs.length}${falseSpecs.length ? ` (${falseSpecs.join(', ')})` : ''} | 0 ${falseSpecs.length === 0 ? 'ok' : 'OVER'} |`);
  console.log(`| forged files passing toolweave check | ${check.code === 0 ? forged.length : 'check failed'} / ${forged.length} | all ${check.code === 0 ? 'ok' : 'FAILED'} |`);
  console.log(`| held-out occurrences: composite answers as the recorded chain did | ${same} / ${compared} | all ${same === compared && compared > 0 ? 'ok' : 'DIFFERS'} |`);
  console.log(`| held-out tool calls: recorded / with the forged composites | ${heldOutCalls} / ${withComposites} | |`);
  console.log(`| round trips saved on the held-out sessions | ${heldOutCalls - withComposites} (${((1 - withComposites / heldOutCalls) * 100).toFixed(0)}%) | |`);
  for (const mismatch of mismatches) console.log(`  differs: ${mismatch}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
