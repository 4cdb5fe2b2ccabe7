/**
 * What every example runs on: a temporary copy of the fixture project, the real fs tools over
 * it, and a gate. Removed again when the example ends, so running an example never changes the repo.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createStepGate, type ITool, type StepGate } from '../../src/index.js';
import { createFsTools } from './fs-tools.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/project/', import.meta.url));

/** A temporary project with its tools and a gate over them. */
export interface Workspace {
  /** The project's folder. */
  root: string;
  /** The tools by name. */
  tools: Map<string, ITool>;
  /** A gate resolving from `tools`. */
  gate: StepGate;
}

/** Run `fn` over a fresh copy of the fixture project, then remove the copy. */
export async function withWorkspace<T>(fn: (workspace: Workspace) => Promise<T>): Promise<T> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolweave-example-'));
  try {
    await cp(FIXTURE, root, { recursive: true });
    const tools = new Map(createFsTools(root).map((t) => [t.name, t]));
    const gate = createStepGate({ resolve: (name) => tools.get(name) });
    return await fn({ root, tools, gate });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Whether this module was started directly (`tsx examples/...`), not imported by a test. */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(moduleUrl);
}

/** Print a value compactly. */
export function show(value: unknown, max = 300): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
