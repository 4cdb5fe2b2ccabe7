import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIXTURE_PROJECT, INVESTIGATE_CACHE_SPEC, main } from '../../examples/demo.js';
import { createFsTools, evaluateArithmetic } from '../../examples/tools/fs-tools.js';
import type { ITool, ToolExecutionResult } from '../../src/index.js';

describe('the demo', () => {
  it('shows the composite, the calls saved, the refusal and the dry run, and exits 0', async () => {
    const lines: string[] = [];
    const code = await main((line) => lines.push(line));
    const text = lines.join('\n');
    expect(code, text).toBe(0);
    // The spec that builds the composite, printed as JSON before the composite runs.
    const header = lines.indexOf('   its spec (ComposableToolSpec):');
    const call = lines.findIndex((line) => line.startsWith('   investigate_cache('));
    expect(header).toBeGreaterThan(0);
    expect(call).toBeGreaterThan(header);
    const printed = lines.slice(header + 1, call);
    expect(printed.every((line) => line.startsWith('     '))).toBe(true);
    expect(JSON.parse(printed.join('\n'))).toEqual(INVESTIGATE_CACHE_SPEC);
    expect(text).toMatch(/4\. tests +run_tests +\{\} +ok/);
    expect(text).toMatch(/output\.uses: +the definition and 3 callers, among them src\/app\/report\.js:7: +const key = cacheKey\(region, user\);/);
    expect(text).toMatch(/output\.tests: +passed false; test\/cache\.test\.json/);
    expect(text).toMatch(/step by step: 4 tool calls = 4 model turns; composite: 1 call = 1 turn/);
    expect(text).toMatch(/validate: step "save" calls "write_file", which has side effects/);
    expect(text).toMatch(/build: refused \(SpecError\)/);
    expect(text).toMatch(/run: step_not_chainable at step "save", before any step ran \(0 calls\)/);
    expect(text).toContain('notes/cache-uses.txt exists: no (nothing was written)');
    expect(text).toMatch(/effect: step "fix" \(edit_file\) wouldRun: true, args:/);
    expect(text).toContain('src/app/report.js unchanged: yes');
    expect(text).toContain('demo: every expected behaviour was seen');
  });

  it('never changes the fixture project (it works on a temporary copy)', async () => {
    await main(() => {});
    const report = await readFile(path.join(FIXTURE_PROJECT, 'src/app/report.js'), 'utf8');
    expect(report).toContain('cacheKey(region, user)');
    await expect(stat(path.join(FIXTURE_PROJECT, 'notes'))).rejects.toThrow();
  });
});

describe('the filesystem tools', () => {
  let base: string;
  let root: string;
  let tools: Map<string, ITool>;
  const call = (name: string, args: Record<string, unknown> = {}): Promise<ToolExecutionResult> => tools.get(name)!.execute(args, {});

  beforeEach(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'toolweave-fs-'));
    root = path.join(base, 'project');
    await cp(FIXTURE_PROJECT, root, { recursive: true });
    await mkdir(path.join(base, 'outside'));
    await writeFile(path.join(base, 'outside', 'secret.txt'), 'secret');
    tools = new Map(createFsTools(root).map((t) => [t.name, t]));
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('declare ids, side effects and required fields', () => {
    expect([...tools.keys()]).toEqual(['list_dir', 'grep_files', 'find_files', 'read_file', 'calculator', 'write_file', 'edit_file', 'run_tests']);
    for (const t of tools.values()) {
      expect(t.id).toBe(`fs:${t.name}`);
      expect(t.description).toMatch(/\.$/);
      expect(t.hasSideEffects).toBe(t.name === 'write_file' || t.name === 'edit_file');
    }
    expect(tools.get('edit_file')!.inputSchema).toMatchObject({ required: ['path', 'find', 'replace'] });
  });

  it('refuse paths that leave the root: .., absolute paths, symlinks out', async () => {
    await symlink(path.join(base, 'outside', 'secret.txt'), path.join(root, 'link.txt'));
    await symlink(path.join(base, 'outside'), path.join(root, 'linked-dir'));
    await symlink(path.join(base, 'outside', 'not-yet.txt'), path.join(root, 'dangling.txt'));
    const attempts: [string, Record<string, unknown>][] = [
      ['read_file', { path: '../outside/secret.txt' }],
      ['read_file', { path: 'src/../../outside/secret.txt' }],
      ['read_file', { path: path.join(base, 'outside', 'secret.txt') }],
      ['read_file', { path: 'link.txt' }],
      ['list_dir', { path: 'linked-dir' }],
      ['list_dir', { path: '..' }],
      ['grep_files', { pattern: 'secret', path: '..' }],
      ['write_file', { path: 'linked-dir/new.txt', content: 'x' }],
      ['write_file', { path: '../escaped.txt', content: 'x' }],
      ['write_file', { path: 'dangling.txt', content: 'x' }],
      ['edit_file', { path: 'link.txt', find: 'secret', replace: 'public' }],
    ];
    for (const [name, args] of attempts) {
      const result = await call(name, args);
      expect(result, `${name} ${JSON.stringify(args)}`).toMatchObject({ success: false, details: { code: 'path_outside_root' } });
    }
    await expect(stat(path.join(base, 'outside', 'new.txt'))).rejects.toThrow();
    await expect(stat(path.join(base, 'escaped.txt'))).rejects.toThrow();
    await expect(stat(path.join(base, 'outside', 'not-yet.txt'))).rejects.toThrow();
    expect(await readFile(path.join(base, 'outside', 'secret.txt'), 'utf8')).toBe('secret');
    // A `..` that stays inside the root is fine.
    expect(await call('read_file', { path: 'src/../package.json' })).toMatchObject({ success: true });
    await writeFile(path.join(root, '..dots.txt'), 'fine');
    expect(await call('read_file', { path: '..dots.txt' })).toMatchObject({ success: true, output: 'fine' });
  });

  it('list_dir: sorted entries, folders with a trailing slash', async () => {
    expect((await call('list_dir', { path: '.' })).output).toBe(['README.md', 'logs/', 'package.json', 'src/', 'test/'].join('\n'));
    expect((await call('list_dir', { path: 'src' })).output).toBe('adapters/\napp/\nserver.js');
    expect((await call('list_dir', { path: 'package.json' })).details?.code).toBe('not_a_directory');
    expect((await call('list_dir', { path: 'nope' })).details?.code).toBe('not_found');
  });

  it('grep_files: `relative/path:line: text`, recursive, sorted; glob and count', async () => {
    const result = await call('grep_files', { pattern: 'cacheKey\\(', path: 'src' });
    expect(result.output).toBe([
      'src/app/cache.js:8: export function cacheKey(user, region) {',
      'src/app/orders.js:7:   const key = cacheKey(user, region);',
      'src/app/profile.js:7:   const key = cacheKey(user, region);',
      'src/app/report.js:7:   const key = cacheKey(region, user);',
    ].join('\n'));
    expect((await call('grep_files', { pattern: 'class \\w+Adapter', path: '.', glob: '*-adapter.js' })).output).toBe([
      'src/adapters/base-adapter.js:1: export class BaseAdapter {',
      'src/adapters/http-adapter.js:3: export class HttpAdapter extends BaseAdapter {',
      'src/adapters/queue-adapter.js:3: export class QueueAdapter extends BaseAdapter {',
    ].join('\n'));
    expect((await call('grep_files', { pattern: ' ERROR ', path: 'logs', count: true })).output).toBe(4);
    expect((await call('grep_files', { pattern: 'no such text anywhere' })).output).toBe('');
    expect((await call('grep_files', { pattern: '(' })).details?.code).toBe('bad_pattern');
  });

  it('read_file returns the text; a missing file is not_found', async () => {
    expect((await call('read_file', { path: 'src/app/cache.js' })).output).toContain('export function cacheKey(user, region)');
    expect((await call('read_file', { path: 'src/app/missing.js' })).details?.code).toBe('not_found');
    expect((await call('read_file', { path: 'src' })).details?.code).toBe('not_a_file');
    expect((await call('read_file', {})).details?.code).toBe('invalid_args');
  });

  it('calculator: arithmetic only, never eval', async () => {
    expect((await call('calculator', { expression: '(3 + 4) * 2 - 10 / 4' })).output).toBe(11.5);
    expect((await call('calculator', { expression: '-2 * -(1.5 + .5)' })).output).toBe(4);
    expect(evaluateArithmetic('1e3 / 8')).toEqual({ ok: true, value: 125 });
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    try {
      for (const expression of ['process.exit()', '2 ** 3', 'constructor', '1; 2', '1/0', '(((1)', '('.repeat(500) + '1' + ')'.repeat(500), '']) {
        const result = await call('calculator', { expression });
        expect(result, expression).toMatchObject({ success: false, details: { code: 'calc_invalid' } });
      }
      expect(exit).not.toHaveBeenCalled();
    } finally {
      exit.mockRestore();
    }
  });

  it('write_file writes (creating folders) and says how many bytes', async () => {
    expect((await call('write_file', { path: 'notes/a.txt', content: 'héllo' })).output).toBe('wrote 6 bytes to notes/a.txt');
    expect(await readFile(path.join(root, 'notes/a.txt'), 'utf8')).toBe('héllo');
  });

  it('edit_file replaces the first occurrence; edit_no_match when absent', async () => {
    await writeFile(path.join(root, 'twice.txt'), 'a-b-a');
    expect((await call('edit_file', { path: 'twice.txt', find: 'a', replace: 'c' })).output).toBe('replaced 1 occurrence in twice.txt');
    expect(await readFile(path.join(root, 'twice.txt'), 'utf8')).toBe('c-b-a');
    const missing = await call('edit_file', { path: 'twice.txt', find: 'zzz', replace: 'y' });
    expect(missing).toMatchObject({ success: false, details: { code: 'edit_no_match' } });
    expect(await readFile(path.join(root, 'twice.txt'), 'utf8')).toBe('c-b-a');
  });

  it('run_tests checks every *.test.json and reports the failures', async () => {
    expect((await call('run_tests')).output).toEqual({
      passed: false,
      failures: ['test/cache.test.json: src/app/report.js does not contain "cacheKey(user, region)"'],
    });
    await call('edit_file', { path: 'src/app/report.js', find: 'cacheKey(region, user)', replace: 'cacheKey(user, region)' });
    expect((await call('run_tests')).output).toEqual({ passed: true, failures: [] });
    await writeFile(path.join(root, 'test/broken.test.json'), '{ not json');
    const broken = (await call('run_tests')).output as { passed: boolean; failures: string[] };
    expect(broken.passed).toBe(false);
    expect(broken.failures[0]).toMatch(/^test\/broken\.test\.json: cannot read the test/);
  });
});
