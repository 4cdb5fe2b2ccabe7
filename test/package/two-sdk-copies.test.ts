/**
 * A folder install (`npm install ../toolweave`) links the checkout, whose own node_modules holds
 * the MCP SDK; the user's project installs the SDK too. Two copies of the SDK's `Client` class then
 * exist, and a class with private members from one copy is not the type of the other. A user's
 * client from their own copy must still type-check as the argument of `mcpTools`.
 *
 * Built as that install lays it out, in a temporary folder: `node_modules/toolweave` links the
 * worktree (its built `dist`; `npm run build` first), `node_modules/@modelcontextprotocol/sdk` is
 * a copy of the SDK, and the SDK's own dependencies link the worktree's. Then the worktree's
 * compiler checks a strict NodeNext user module.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../mcp/helpers.js';

const run = promisify(execFile);
const TSC = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const SDK = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'sdk');
/** One tsc run over a small module and the declarations it reads: seconds, a minute when busy. */
const TIMEOUT_MS = 120_000;

let app: string;

beforeAll(async () => {
  expect(existsSync(path.join(REPO, 'dist', 'mcp', 'index.d.ts')), 'dist is missing: run npm run build').toBe(true);
  app = await mkdtemp(path.join(os.tmpdir(), 'toolweave-two-sdks-'));
  const modules = path.join(app, 'node_modules');
  await mkdir(path.join(modules, '@modelcontextprotocol'), { recursive: true });
  await symlink(REPO, path.join(modules, 'toolweave'), 'junction');
  // The user's own copy of the SDK: the same version, a separate declaration of every class.
  await cp(SDK, path.join(modules, '@modelcontextprotocol', 'sdk'), { recursive: true });
  const sdkDependencies = Object.keys((JSON.parse(readFileSync(path.join(SDK, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies);
  for (const name of [...sdkDependencies, '@types/node']) {
    const target = path.join(modules, name);
    await mkdir(path.dirname(target), { recursive: true });
    await symlink(path.join(REPO, 'node_modules', name), target, 'junction');
  }
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'two-sdks', private: true, type: 'module' }));
  await writeFile(path.join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
    files: ['app.ts'],
  }));
}, TIMEOUT_MS);

afterAll(async () => {
  if (app) await rm(app, { recursive: true, force: true });
});

describe('toolweave/mcp next to a second copy of the MCP SDK', () => {
  it('type-checks mcpTools(client) for a Client from the user\'s own copy', async () => {
    await writeFile(path.join(app, 'app.ts'), `
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mcpTools, type McpTool } from 'toolweave/mcp';

const client = new Client({ name: 'host', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
const tools: McpTool[] = await mcpTools(client, { trustAnnotations: true });
console.log(tools.map((tool) => tool.name));
`);
    // The two copies really are two: the user's resolves inside the project, toolweave's in the worktree.
    expect(existsSync(path.join(app, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist'))).toBe(true);
    const result = await run(process.execPath, [TSC, '-p', 'tsconfig.json', '--traceResolution'], { cwd: app, timeout: TIMEOUT_MS, maxBuffer: 256 * 1024 * 1024 }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, stdout: error.stdout ?? '' }),
    );
    const copies = [...result.stdout.matchAll(/'@modelcontextprotocol\/sdk\/[^']+' was successfully resolved to '([^']+?node_modules\/@modelcontextprotocol\/sdk)\//gu)].map((m) => m[1]);
    expect(new Set(copies).size, 'the SDK resolved to a single copy: the test would prove nothing').toBe(2);
    const errors = result.stdout.split('\n').filter((line) => /error TS\d+/u.test(line));
    expect(errors).toEqual([]);
    expect(result.code).toBe(0);
  }, TIMEOUT_MS);
});
