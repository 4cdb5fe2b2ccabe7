/**
 * A fresh temporary copy of the committed fixture repository, with the real filesystem tools
 * over it. Every conversation gets its own copy, so an edit in one never reaches another.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ITool } from '../../dist/index.js';
import { createFsTools } from '../../examples/tools/fs-tools.js';

/** The committed fixture the benchmarks read. */
export const FIXTURE_REPO = fileURLToPath(new URL('../fixtures/repo/', import.meta.url));

/** A temporary repository and the base tools over it. */
export interface Workspace {
  root: string;
  /** list_dir, grep_files, find_files, read_file, calculator, write_file, edit_file, run_tests. */
  tools: ITool[];
}

/** Run `fn` over a fresh copy of the fixture, then remove the copy. */
export async function withFixtureCopy<T>(fn: (workspace: Workspace) => Promise<T>): Promise<T> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolweave-bench-'));
  try {
    await cp(FIXTURE_REPO, root, { recursive: true });
    return await fn({ root, tools: createFsTools(root) });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
