/**
 * Real filesystem tools over one root folder, for the demo, the examples and the token
 * benchmarks. Every path is relative to the root; a path that leaves it (`..`, an absolute path,
 * a symlink pointing out) is refused with `path_outside_root`. Failures are results, never throws.
 */
import { promises as fs, type Dirent } from 'node:fs';
import path from 'node:path';
import type { ITool, ToolExecutionResult } from '../../src/index.js';

/** The codes these tools return in `details.code` when they fail. */
export const FS_TOOL_CODES = {
  path_outside_root: 'The path leaves the root folder (`..`, an absolute path, or a symlink pointing out).',
  invalid_args: 'A required argument is missing or has the wrong type.',
  not_found: 'The file or folder does not exist.',
  not_a_file: 'The path is a folder where a file was expected.',
  not_a_directory: 'The path is a file where a folder was expected.',
  bad_pattern: 'grep_files: the pattern is not a valid regular expression.',
  edit_no_match: 'edit_file: the text to find does not occur in the file.',
  calc_invalid: 'calculator: the expression is not plain arithmetic, or has no finite value.',
  io_error: 'The filesystem refused the operation (permissions, a full disk, ...).',
} as const;

/** A code the filesystem tools return. */
export type FsToolCode = keyof typeof FS_TOOL_CODES;

/** Folders a recursive walk never enters. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);
/** Files larger than this are not searched. */
const MAX_SEARCH_BYTES = 1_000_000;

/**
 * Make the filesystem tools for `root`: `list_dir`, `grep_files`, `find_files`, `read_file`, `calculator`,
 * `write_file`, `edit_file` and `run_tests`. Only `write_file` and `edit_file` have side effects.
 *
 * @param root - the folder every path is relative to
 */
export function createFsTools(root: string): ITool[] {
  return [
    tool('list_dir', 'List directory', 'List the entries of a folder, folders marked with a trailing slash.', false,
      { path: { type: 'string', description: 'Folder, relative to the root.' } }, ['path'],
      async (args) => {
        const dir = await inside(root, args.path ?? '.', 'path');
        if (!dir.ok) return dir.failure;
        const entries = await readDir(dir.abs, dir.rel);
        if (!entries.ok) return entries.failure;
        const names = entries.list.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort(byCodePoint);
        return ok(names.join('\n'));
      }),

    tool('grep_files', 'Search files', 'Search files under a folder for a regular expression and list the matching lines.', false,
      {
        pattern: { type: 'string', description: 'A JavaScript regular expression source.' },
        path: { type: 'string', description: "Folder to search, relative to the root (default '.')." },
        glob: { type: 'string', description: "Only files whose name matches, e.g. '*.ts'." },
        count: { type: 'boolean', description: 'Return the number of matching lines instead of the lines.' },
      }, ['pattern'],
      async (args) => {
        if (typeof args.pattern !== 'string') return fail('invalid_args', 'grep_files needs a string "pattern".');
        if (args.glob !== undefined && typeof args.glob !== 'string') return fail('invalid_args', 'grep_files: "glob" must be a string.');
        let regex: RegExp;
        try {
          regex = new RegExp(args.pattern);
        } catch (error) {
          return fail('bad_pattern', `grep_files: ${(error as Error).message}`);
        }
        const dir = await inside(root, args.path ?? '.', 'path');
        if (!dir.ok) return dir.failure;
        const nameMatches = args.glob ? globToRegExp(args.glob) : undefined;
        const files = await walkFiles(dir.abs, dir.rel);
        if (!files.ok) return files.failure;
        const matches: { file: string; line: number; text: string }[] = [];
        for (const abs of files.list) {
          if (nameMatches && !nameMatches.test(path.basename(abs))) continue;
          const text = await readSearchable(abs);
          if (text === undefined) continue;
          const file = toRelative(dir.root, abs);
          text.split('\n').forEach((line, i) => {
            if (regex.test(line)) matches.push({ file, line: i + 1, text: line.replace(/\s+$/u, '') });
          });
        }
        if (args.count === true) return ok(matches.length);
        matches.sort((a, b) => byCodePoint(a.file, b.file) || a.line - b.line);
        return ok(matches.map((m) => `${m.file}:${m.line}: ${m.text}`).join('\n'));
      }),

    tool('find_files', 'Find files', 'List the files under a folder (recursively) whose name matches a glob, as an array of paths.', false,
      {
        path: { type: 'string', description: "Folder, relative to the root (default '.')." },
        glob: { type: 'string', description: "Only files whose name matches, e.g. '*.js'." },
      }, [],
      async (args) => {
        if (args.glob !== undefined && typeof args.glob !== 'string') return fail('invalid_args', 'find_files: "glob" must be a string.');
        const dir = await inside(root, args.path ?? '.', 'path');
        if (!dir.ok) return dir.failure;
        const files = await walkFiles(dir.abs, dir.rel);
        if (!files.ok) return files.failure;
        const nameMatches = args.glob ? globToRegExp(args.glob) : undefined;
        const found = files.list.filter((abs) => !nameMatches || nameMatches.test(path.basename(abs))).map((abs) => toRelative(dir.root, abs));
        return ok(found.sort(byCodePoint));
      }),

    tool('read_file', 'Read file', 'Read a text file.', false,
      { path: { type: 'string', description: 'File, relative to the root.' } }, ['path'],
      async (args) => {
        const file = await inside(root, args.path, 'path');
        if (!file.ok) return file.failure;
        const text = await readText(file.abs, file.rel);
        return text.ok ? ok(text.text) : text.failure;
      }),

    tool('calculator', 'Calculator', 'Evaluate an arithmetic expression with + - * / and parentheses.', false,
      { expression: { type: 'string', description: "For example '(3 + 4) * 2'." } }, ['expression'],
      async (args) => {
        if (typeof args.expression !== 'string') return fail('invalid_args', 'calculator needs a string "expression".');
        const value = evaluateArithmetic(args.expression);
        return value.ok ? ok(value.value) : fail('calc_invalid', `calculator: ${value.problem}`);
      }),

    tool('write_file', 'Write file', 'Write text to a file, creating it and its folders if needed.', true,
      { path: { type: 'string', description: 'File, relative to the root.' }, content: { type: 'string' } }, ['path', 'content'],
      async (args) => {
        if (typeof args.content !== 'string') return fail('invalid_args', 'write_file needs a string "content".');
        const file = await inside(root, args.path, 'path');
        if (!file.ok) return file.failure;
        try {
          await fs.mkdir(path.dirname(file.abs), { recursive: true });
          await fs.writeFile(file.abs, args.content, 'utf8');
        } catch (error) {
          return ioFailure(error, file.rel);
        }
        return ok(`wrote ${Buffer.byteLength(args.content, 'utf8')} bytes to ${file.rel}`);
      }),

    tool('edit_file', 'Edit file', 'Replace the first occurrence of a text in a file.', true,
      {
        path: { type: 'string', description: 'File, relative to the root.' },
        find: { type: 'string', description: 'The exact text to replace.' },
        replace: { type: 'string', description: 'The text to put in its place.' },
      }, ['path', 'find', 'replace'],
      async (args) => {
        if (typeof args.find !== 'string' || args.find === '' || typeof args.replace !== 'string') {
          return fail('invalid_args', 'edit_file needs a non-empty string "find" and a string "replace".');
        }
        const file = await inside(root, args.path, 'path');
        if (!file.ok) return file.failure;
        const text = await readText(file.abs, file.rel);
        if (!text.ok) return text.failure;
        const at = text.text.indexOf(args.find);
        if (at < 0) return fail('edit_no_match', `edit_file: ${JSON.stringify(args.find)} does not occur in ${file.rel}.`);
        const edited = text.text.slice(0, at) + args.replace + text.text.slice(at + args.find.length);
        try {
          await fs.writeFile(file.abs, edited, 'utf8');
        } catch (error) {
          return ioFailure(error, file.rel);
        }
        return ok(`replaced 1 occurrence in ${file.rel}`);
      }),

    tool('run_tests', 'Run tests', 'Run every *.test.json check under the root and report the failures.', false, {}, [],
      async () => {
        const all = await inside(root, '.', 'root');
        if (!all.ok) return all.failure;
        const files = await walkFiles(all.abs, all.rel);
        if (!files.ok) return files.failure;
        const failures: string[] = [];
        const tests = files.list.filter((f) => f.endsWith('.test.json')).sort(byCodePoint);
        for (const abs of tests) failures.push(...(await runTestFile(root, all.root, abs)));
        return ok({ passed: failures.length === 0, failures });
      }),
  ];
}

/** One `*.test.json` file: `{ "file": "src/x.js", "expect": [{ "contains": "..." }] }`. */
async function runTestFile(root: string, realRoot: string, abs: string): Promise<string[]> {
  const name = toRelative(realRoot, abs);
  let spec: unknown;
  try {
    spec = JSON.parse(await fs.readFile(abs, 'utf8'));
  } catch (error) {
    return [`${name}: cannot read the test: ${(error as Error).message}`];
  }
  const { file, expect } = (spec ?? {}) as { file?: unknown; expect?: unknown };
  if (typeof file !== 'string' || !Array.isArray(expect)) return [`${name}: needs "file" (a string) and "expect" (a list)`];
  const target = await inside(root, file, 'file');
  if (!target.ok) return [`${name}: ${target.failure.error}`];
  const text = await readText(target.abs, target.rel);
  if (!text.ok) return [`${name}: ${text.failure.error}`];
  const failures: string[] = [];
  for (const check of expect as { contains?: unknown }[]) {
    if (typeof check?.contains !== 'string') failures.push(`${name}: each expectation needs a string "contains"`);
    else if (!text.text.includes(check.contains)) failures.push(`${name}: ${target.rel} does not contain ${JSON.stringify(check.contains)}`);
  }
  return failures;
}

// ---------------------------------------------------------------------------------------------
// Paths

type Inside = { ok: true; abs: string; rel: string; root: string } | { ok: false; failure: ToolExecutionResult<never> };

/**
 * Resolve `given` under `root`, refusing anything that leaves it: an absolute path, a `..` that
 * climbs out, or a symlink (the path itself or any folder above it) that points outside.
 */
async function inside(root: string, given: unknown, field: string): Promise<Inside> {
  if (typeof given !== 'string' || given === '' || given.includes('\0')) {
    return { ok: false, failure: fail('invalid_args', `"${field}" must be a non-empty string.`) };
  }
  const outside = (): Inside => ({
    ok: false,
    failure: fail('path_outside_root', `The path ${JSON.stringify(given)} is outside the root folder.`, { path: given }),
  });
  if (path.isAbsolute(given) || path.win32.isAbsolute(given)) return outside();
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch (error) {
    return { ok: false, failure: ioFailure(error, 'the root folder') };
  }
  const abs = path.resolve(realRoot, given);
  if (!within(realRoot, abs)) return outside();
  // The deepest part of the path that exists must really be inside too (symlinks resolved).
  for (let probe = abs; ; probe = path.dirname(probe)) {
    try {
      if (!within(realRoot, await fs.realpath(probe))) return outside();
      break;
    } catch {
      // It does not resolve: a dangling symlink could still point out, so only a missing entry is fine.
      if (await fs.lstat(probe).then(() => true, () => false)) return outside();
      if (probe === realRoot || path.dirname(probe) === probe) break;
    }
  }
  return { ok: true, abs, rel: toRelative(realRoot, abs) || '.', root: realRoot };
}

function within(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function toRelative(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join('/');
}

type Listing<T> = { ok: true; list: T[] } | { ok: false; failure: ToolExecutionResult<never> };

async function readDir(abs: string, rel: string): Promise<Listing<Dirent>> {
  try {
    return { ok: true, list: await fs.readdir(abs, { withFileTypes: true }) };
  } catch (error) {
    return { ok: false, failure: ioFailure(error, rel) };
  }
}

/** Every regular file under `dir` (absolute paths), recursively. Symlinks are not followed. */
async function walkFiles(dir: string, rel: string): Promise<Listing<string>> {
  // A file given where a folder was expected is searched on its own.
  if ((await fs.stat(dir).catch(() => undefined))?.isFile()) return { ok: true, list: [dir] };
  const top = await readDir(dir, rel);
  if (!top.ok) return top;
  const out: string[] = [];
  const visit = async (at: string, entries: Dirent[]): Promise<void> => {
    for (const e of entries) {
      const abs = path.join(at, e.name);
      if (e.isDirectory() && !SKIPPED_DIRS.has(e.name)) {
        const inner = await readDir(abs, e.name);
        if (inner.ok) await visit(abs, inner.list);
      } else if (e.isFile()) {
        out.push(abs);
      }
    }
  };
  await visit(dir, top.list);
  return { ok: true, list: out };
}

async function readText(abs: string, rel: string): Promise<{ ok: true; text: string } | { ok: false; failure: ToolExecutionResult<never> }> {
  try {
    return { ok: true, text: await fs.readFile(abs, 'utf8') };
  } catch (error) {
    return { ok: false, failure: ioFailure(error, rel) };
  }
}

/** The file's text, or `undefined` when it is too large or looks binary. */
async function readSearchable(abs: string): Promise<string | undefined> {
  try {
    const stat = await fs.stat(abs);
    if (stat.size > MAX_SEARCH_BYTES) return undefined;
    const text = await fs.readFile(abs, 'utf8');
    return text.includes('\0') ? undefined : text;
  } catch {
    return undefined;
  }
}

/** `*` and `?` within a file name; everything else literal. */
function globToRegExp(glob: string): RegExp {
  const source = glob.replace(/[.+^${}()|[\]\\]/gu, '\\$&').replace(/\*/gu, '[^/]*').replace(/\?/gu, '[^/]');
  return new RegExp(`^${source}$`, 'u');
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Arithmetic: a recursive-descent parser, never eval or Function.
//   expr   = term (('+' | '-') term)*
//   term   = factor (('*' | '/') factor)*
//   factor = ('+' | '-') factor | number | '(' expr ')'

/** Nesting deeper than this is refused instead of overflowing the stack. */
const MAX_NESTING = 100;
const MAX_EXPRESSION_LENGTH = 1000;

/** Evaluate `+ - * /`, parentheses and decimal numbers. Anything else is a problem, never code. */
export function evaluateArithmetic(expression: string): { ok: true; value: number } | { ok: false; problem: string } {
  if (expression.length > MAX_EXPRESSION_LENGTH) return { ok: false, problem: `the expression is longer than ${MAX_EXPRESSION_LENGTH} characters` };
  let i = 0;
  let depth = 0;
  const skip = () => {
    while (i < expression.length && /\s/u.test(expression[i])) i++;
  };
  const problem = (what: string): never => {
    throw new SyntaxError(`${what} at position ${i + 1} of ${JSON.stringify(expression)}`);
  };
  const expr = (): number => {
    let value = term();
    for (skip(); expression[i] === '+' || expression[i] === '-'; skip()) {
      const op = expression[i++];
      const right = term();
      value = op === '+' ? value + right : value - right;
    }
    return value;
  };
  const term = (): number => {
    let value = factor();
    for (skip(); expression[i] === '*' || expression[i] === '/'; skip()) {
      const op = expression[i++];
      const right = factor();
      value = op === '*' ? value * right : value / right;
    }
    return value;
  };
  const factor = (): number => {
    skip();
    if (++depth > MAX_NESTING) problem('too deeply nested');
    try {
      const ch = expression[i];
      if (ch === '+' || ch === '-') {
        i++;
        const inner = factor();
        return ch === '-' ? -inner : inner;
      }
      if (ch === '(') {
        i++;
        const inner = expr();
        skip();
        if (expression[i] !== ')') problem('expected ")"');
        i++;
        return inner;
      }
      const number = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/u.exec(expression.slice(i));
      if (!number) return problem(ch === undefined ? 'unexpected end' : `unexpected ${JSON.stringify(ch)}`);
      i += number[0].length;
      return Number(number[0]);
    } finally {
      depth--;
    }
  };
  try {
    const value = expr();
    skip();
    if (i < expression.length) problem(`unexpected ${JSON.stringify(expression[i])}`);
    if (!Number.isFinite(value)) return { ok: false, problem: 'the result is not a finite number (division by zero?)' };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
}

// ---------------------------------------------------------------------------------------------
// Tool plumbing

function tool(
  name: string,
  displayName: string,
  description: string,
  hasSideEffects: boolean,
  properties: Record<string, unknown>,
  required: string[],
  run: (args: Record<string, unknown>) => Promise<ToolExecutionResult>,
): ITool {
  return {
    id: `fs:${name}`,
    name,
    displayName,
    description,
    inputSchema: { type: 'object', properties, required, additionalProperties: false },
    hasSideEffects,
    async execute(args) {
      try {
        return await run(args ?? {});
      } catch (error) {
        return ioFailure(error, name);
      }
    },
  };
}

function ok<O>(output: O): ToolExecutionResult<O> {
  return { success: true, output };
}

function fail(code: FsToolCode, error: string, details: Record<string, unknown> = {}): ToolExecutionResult<never> {
  return { success: false, error, details: { ...details, code } };
}

function ioFailure(error: unknown, where: string): ToolExecutionResult<never> {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return fail('not_found', `${where}: no such file or folder.`);
  if (code === 'EISDIR') return fail('not_a_file', `${where} is a folder, not a file.`);
  if (code === 'ENOTDIR') return fail('not_a_directory', `${where} is not a folder.`);
  return fail('io_error', `${where}: ${code ?? (error instanceof Error ? error.message : String(error))}`);
}
