/**
 * The package as a user gets it. A clean copy of the sources (no `dist`) is packed with
 * `npm pack`, which builds `dist` through the package's own `prepare` script, as a git or folder
 * install does; the tarball is installed into a fresh project, and every public entry listed in
 * package.json `exports` is imported by name, required from CommonJS, then type-checked as a
 * user's TypeScript would.
 * Subpaths added to `exports` later are covered without changing this file; their optional peer
 * dependencies are installed at the versions pinned in `devDependencies`.
 *
 * The same tarball, installed alone into another project and globally (`npm install -g` into a
 * temporary prefix), gives a `toolweave` bin that serves the proxy to a real MCP client with
 * nothing else installed: the MCP SDK comes with the package.
 *
 * It works in its own temporary folders, so the worktree's `dist` is never rebuilt under the
 * other test files, and it removes them when it ends. npm installs with `--prefer-offline`: the
 * npm cache that `npm ci` filled has every package it needs.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, copyProject, FS_SERVER, processesLeft, type Project } from '../mcp/helpers.js';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const TSC = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
/** Packing builds with tsc and installs from the cache: minutes on a busy machine, never hours. */
const TIMEOUT_MS = 300_000;

interface PackageJson {
  name: string;
  version: string;
  exports: Record<string, string | { types?: string; import?: string; default?: string }>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
}

const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as PackageJson;

/** One public entry: the name a user imports, where its code and types are, and its source module. */
interface Entry {
  specifier: string;
  code: string;
  types: string | undefined;
  source: string;
}

/** Every entry of `exports`, read from package.json so a new subpath is covered as it is added. */
const entries: Entry[] = Object.entries(pkg.exports).map(([subpath, target]) => {
  const code = typeof target === 'string' ? target : target.import ?? target.default ?? '';
  const types = typeof target === 'string' ? undefined : target.types;
  return {
    specifier: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//u, '')}`,
    code,
    types,
    // ./dist/<path>.js is compiled from src/<path>.ts (tsconfig.build.json: rootDir src, outDir dist).
    source: path.join(REPO, code.replace(/^\.\/dist\//u, 'src/').replace(/\.js$/u, '.ts')),
  };
});

/** Names each entry must export, beyond matching its source module. */
const EXPECTED_NAMES: Record<string, string[]> = {
  [pkg.name]: ['ComposableToolBuilder', 'createStepGate', 'checkChainable', 'MAX_COMPOSITION_DEPTH', 'createRunPipelineTool', 'createComposeTool', 'createScriptTool', 'renderUsageGuide'],
  [`${pkg.name}/ai-sdk`]: ['toAiSdkTools', 'fromAiSdkTools'],
  [`${pkg.name}/langchain`]: ['toLangChainTools', 'fromLangChainTools'],
  [`${pkg.name}/openai-agents`]: ['toOpenAIAgentsTools', 'fromOpenAIAgentsTools', 'toStrictSchema'],
  [`${pkg.name}/dbos`]: ['registerDbosDoors', 'durableTool', 'answerApproval', 'pendingApproval'],
};

/**
 * The environment for npm and node children. `npm test` exports its own settings (`npm_config_*`,
 * among them the worktree as `local_prefix`); a child npm would read them and could install into
 * the worktree. Only the settings that point at the user's cache and config files are kept.
 */
function childEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_globalconfig', 'npm_config_registry', 'npm_config_cafile']);
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/iu.test(key) || keep.has(key.toLowerCase())));
}

async function sh(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd, env: childEnv(), maxBuffer: 64 * 1024 * 1024, timeout: TIMEOUT_MS });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stderr ?? ''}\n${stdout ?? ''}`);
  }
}

/** What each entry exports at run time, as imported by name from the installed package. */
async function importedNames(app: string, specifiers: string[]): Promise<Record<string, string[]>> {
  const script = `
    const out = {};
    for (const specifier of ${JSON.stringify(specifiers)}) out[specifier] = Object.keys(await import(specifier)).sort();
    console.log(JSON.stringify(out));`;
  return JSON.parse(await sh(process.execPath, ['--input-type=module', '-e', script], app)) as Record<string, string[]>;
}

/** Folders a git checkout does not have, or that the build makes. */
const NOT_IN_A_CHECKOUT = new Set(['node_modules', 'dist', '.git', 'coverage', path.join('docs', 'api')]);

let tmp: string;
let tarball: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'toolweave-pack-'));
  // A checkout without dist: npm pack runs prepare, which must build it. tsc comes from the
  // worktree's devDependencies, as it would from the checkout's own install.
  const stage = path.join(tmp, 'stage');
  await cp(REPO, stage, { recursive: true, filter: (from) => !NOT_IN_A_CHECKOUT.has(path.relative(REPO, from)) });
  await symlink(path.join(REPO, 'node_modules'), path.join(stage, 'node_modules'), 'junction');
  const packed = path.join(tmp, 'packed');
  await mkdir(packed);
  await sh(NPM, ['pack', '--pack-destination', packed], stage);
  const tarballs = (await readdir(packed)).filter((f) => f.endsWith('.tgz'));
  expect(tarballs).toHaveLength(1);
  tarball = path.join(packed, tarballs[0]);
}, TIMEOUT_MS);

// Three installs' node_modules: more files than a busy machine deletes in the default 10 s.
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
}, TIMEOUT_MS);

/** A fresh project in `tmp` that has installed `specs` (from the cache) and nothing else. */
async function freshProject(name: string, specs: string[]): Promise<string> {
  const dir = path.join(tmp, name);
  await mkdir(dir);
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: `toolweave-pack-${name}`, private: true, type: 'module' }));
  await npmInstall(dir, specs);
  return dir;
}

function npmInstall(dir: string, specs: string[], ...options: string[]): Promise<string> {
  return sh(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', ...options, ...specs], dir);
}

describe('the packed package, installed into a fresh project', () => {
  let app: string;
  let installed: string;
  let rootAlone: Record<string, string[]>;

  beforeAll(async () => {
    app = await freshProject('app', [tarball]);
    installed = path.join(app, 'node_modules', pkg.name);
    // The core installs and loads with none of the optional peers.
    rootAlone = await importedNames(app, [pkg.name]);
    // Then the peers, for the subpaths that need them, and the Node types a TypeScript user has
    // (the compiler is the worktree's own). The AI SDK's own types import 'json-schema' without
    // depending on its types, so its users with skipLibCheck off install them too.
    await npmInstall(app, [...peersToInstall(), `@types/node@${pkg.devDependencies?.['@types/node']}`, `@types/json-schema@${pkg.devDependencies?.['@types/json-schema']}`]);
  }, 2 * TIMEOUT_MS);

  it('holds the built code, the license and the readme, and no sources or tests', () => {
    for (const file of ['package.json', 'LICENSE', 'README.md', ...entries.flatMap((e) => [e.code, e.types ?? e.code])]) {
      expect(existsSync(path.join(installed, file)), file).toBe(true);
    }
    for (const folder of ['src', 'test', 'bench', 'examples', 'node_modules']) expect(existsSync(path.join(installed, folder)), folder).toBe(false);
    expect(readFileSync(path.join(installed, 'LICENSE'), 'utf8')).toContain('Copyright (c) 2026 the toolweave authors');
  });

  it('loads the root entry without any optional peer installed', () => {
    expect(rootAlone[pkg.name]).toEqual(expect.arrayContaining(EXPECTED_NAMES[pkg.name]));
  });

  it('imports every entry in exports by name, each exporting what its source module does', async () => {
    const names = await importedNames(app, entries.map((e) => e.specifier));
    for (const entry of entries) {
      const source = Object.keys(await import(pathToFileURL(entry.source).href)).sort();
      expect(source.length, `${entry.source} exports nothing`).toBeGreaterThan(0);
      expect(names[entry.specifier], entry.specifier).toEqual(source);
      expect(names[entry.specifier]).toEqual(expect.arrayContaining(EXPECTED_NAMES[entry.specifier] ?? []));
    }
    const root = await import(pathToFileURL(entries[0].source).href) as { MAX_COMPOSITION_DEPTH: number };
    expect(root.MAX_COMPOSITION_DEPTH).toBe(8);
  }, TIMEOUT_MS);

  it('requires every entry from CommonJS, to the names its import gives (require(esm), Node 20.19 and later)', async () => {
    // No condition names `require`: the `default` one serves it the same ES modules, which Node
    // loads synchronously as long as none of them awaits at its top level.
    const specifiers = entries.map((e) => e.specifier);
    await writeFile(path.join(app, 'require-all.cjs'), `
      const out = {};
      for (const specifier of ${JSON.stringify(specifiers)}) out[specifier] = Object.keys(require(specifier)).sort();
      console.log(JSON.stringify(out));`);
    const required = JSON.parse(await sh(process.execPath, ['require-all.cjs'], app)) as Record<string, string[]>;
    expect(required).toEqual(await importedNames(app, specifiers));
    expect(required[pkg.name]).toEqual(expect.arrayContaining(EXPECTED_NAMES[pkg.name]));
  }, TIMEOUT_MS);

  it('type-checks a user module that imports every entry (strict, NodeNext)', async () => {
    const imports = entries.map((e, i) => `import * as entry${i} from '${e.specifier}';\nvoid entry${i};`).join('\n');
    await writeFile(path.join(app, 'check.ts'), `${imports}
import { ComposableToolBuilder, createStepGate, type ITool, type ToolExecutionResult } from '${pkg.name}';

const tools = new Map<string, ITool>();
const builder = new ComposableToolBuilder(createStepGate({ resolve: (name) => tools.get(name) }));
const tool: ITool<{ id: number }> = builder.build('lookup_twice', 'Look a user up twice.',
  { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] } as const,
  { steps: [{ tool: 'lookup', inputMapping: { id: '$input.id' } }, { tool: 'lookup', inputMapping: { id: '$input.id' } }] });
export const result: Promise<ToolExecutionResult> = tool.execute({ id: 7 }, {});
`);
    await writeFile(path.join(app, 'tsconfig.json'), JSON.stringify({
      // skipLibCheck, as most projects set it: checking the frameworks' own declarations takes minutes,
      // and the package's declarations are checked when they are built. Every import is still resolved and typed.
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
      files: ['check.ts'],
    }));
    await sh(process.execPath, [TSC, '-p', 'tsconfig.json'], app);
    // The check can fail: a name the package does not export is an error.
    await writeFile(path.join(app, 'wrong.ts'), `import { noSuchName } from '${pkg.name}';\nvoid noSuchName;\n`);
    await writeFile(path.join(app, 'tsconfig.wrong.json'), JSON.stringify({ extends: './tsconfig.json', files: ['wrong.ts'] }));
    await expect(sh(process.execPath, [TSC, '-p', 'tsconfig.wrong.json'], app)).rejects.toThrow(/noSuchName/u);
  }, TIMEOUT_MS);
});

describe('the toolweave bin, from the packed package and nothing else', () => {
  let project: Project;
  let solo: string;
  let prefix: string;

  beforeAll(async () => {
    project = await copyProject('toolweave-pack-bin-');
    solo = await freshProject('solo', [tarball]);
    // A global install, as `npm install -g` makes it, into a prefix of the test's own.
    prefix = path.join(tmp, 'global');
    await mkdir(prefix);
    await npmInstall(tmp, [tarball], '--global', '--prefix', prefix);
  }, 2 * TIMEOUT_MS);

  afterAll(async () => {
    if (!project) return;
    expect(await processesLeft(project.root)).toEqual([]);
    await project.remove();
  });

  /** Start `command` as a desktop client would, in front of the filesystem server, and use it. */
  async function serveAndList(command: string, env: Record<string, string> = {}): Promise<void> {
    const proxy = await connectStdio(command, ['mcp', '--trust-annotations', process.execPath, FS_SERVER, project.root], { cwd: project.root, env });
    try {
      const names = (await proxy.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['run_js', 'run_pipeline', 'compose', 'get_observation', 'read_text_file']));
      const answer = await proxy.client.callTool({ name: 'run_js', arguments: { intention: 'first line', code: `return (await callTool('read_text_file', { path: 'README.md' })).text.split('\\n')[0];` } });
      expect(answer.content).toEqual([{ type: 'text', text: '# shop-api' }]);
    } finally {
      await proxy.close();
    }
  }

  it('a project that installs only toolweave serves the proxy from its installed bin', async () => {
    const manifest = JSON.parse(readFileSync(path.join(solo, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies)).toEqual([pkg.name]);
    // The SDK the bin loads is the one installed with the package, not one added by hand.
    expect(existsSync(path.join(solo, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'))).toBe(true);
    await serveAndList(path.join(solo, 'node_modules', '.bin', 'toolweave'));
  }, TIMEOUT_MS);

  it('npm install -g gives a toolweave command on the PATH that serves the proxy', async () => {
    const bin = path.join(prefix, 'bin');
    expect(existsSync(path.join(bin, 'toolweave'))).toBe(true);
    const { stdout } = await run('toolweave', ['--version'], { env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` } });
    expect(stdout).toBe(`${pkg.version}\n`);
    await serveAndList('toolweave', { PATH: `${bin}${path.delimiter}${process.env.PATH}` });
  }, TIMEOUT_MS);
});

/** The peers the package declares, each at the version pinned in devDependencies, all optional. */
function peersToInstall(): string[] {
  return Object.keys(pkg.peerDependencies ?? {}).map((name) => {
    const pinned = pkg.devDependencies?.[name];
    if (!pinned) throw new Error(`peer dependency ${name} has no exact version pinned in devDependencies`);
    if (pkg.peerDependenciesMeta?.[name]?.optional !== true) throw new Error(`peer dependency ${name} is not marked optional in peerDependenciesMeta`);
    return `${name}@${pinned}`;
  });
}
