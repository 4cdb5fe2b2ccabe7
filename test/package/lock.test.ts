/**
 * The committed package-lock.json is the one `npm install` writes for package.json: a fresh clone's
 * install leaves it alone. Checked by asking npm itself (`--package-lock-only` resolves the tree
 * and writes the lock, touching no node_modules) in a temporary folder holding copies of the two
 * files, and by reading the lock's root entry against package.json.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** Resolving the tree from npm's cache: seconds, a minute on a busy machine. */
const TIMEOUT_MS = 120_000;

type Deps = Record<string, string>;
interface Manifest {
  dependencies?: Deps;
  devDependencies?: Deps;
  peerDependencies?: Deps;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Manifest;
const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, Manifest & { version?: string }> };

/** Only the npm settings that point at the user's cache and config (as test/package/pack.test.ts keeps them). */
function childEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_globalconfig', 'npm_config_registry', 'npm_config_cafile']);
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/iu.test(key) || keep.has(key.toLowerCase())));
}

describe('package-lock.json', () => {
  it("lists package.json's dependencies, development dependencies and peer dependencies in its root entry", () => {
    const root = lock.packages[''];
    expect(root.dependencies).toEqual(pkg.dependencies);
    expect(root.devDependencies).toEqual(pkg.devDependencies);
    expect(root.peerDependencies).toEqual(pkg.peerDependencies);
    expect(root.peerDependenciesMeta).toEqual(pkg.peerDependenciesMeta);
    // Each peer is installed for the tests, at the version devDependencies pins.
    for (const name of Object.keys(pkg.peerDependencies ?? {})) {
      expect(lock.packages[`node_modules/${name}`]?.version, name).toBe(pkg.devDependencies?.[name]);
    }
  });

  it('is left alone by npm install', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-lock-'));
    try {
      for (const file of ['package.json', 'package-lock.json']) await copyFile(path.join(REPO, file), path.join(dir, file));
      await run(NPM, ['install', '--package-lock-only', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, env: childEnv(), timeout: TIMEOUT_MS });
      expect(await readFile(path.join(dir, 'package-lock.json'), 'utf8')).toBe(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, TIMEOUT_MS);
});

describe("the README's test command", () => {
  it('says the suite starts Postgres and Redis of its own, and how long it takes', () => {
    const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
    const paragraph = readme.slice(readme.indexOf('Run the tests'), readme.indexOf('npm install && npm test'));
    expect(paragraph).toMatch(/Redis/u);
    expect(paragraph).toMatch(/Postgre(SQL|s)/u);
    expect(paragraph).toMatch(/about 15 minutes on 2 cores/u);
  });
});
