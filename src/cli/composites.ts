/**
 * The composite files a config names: each pattern relative to the config's folder, where `*`
 * matches within one folder (`specs/*.yaml`); each file read and checked.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_STEP_TIMEOUT_MS } from '../engine/compile-env.js';
import { cycleFrom, cycleProblem } from '../spec/cycles.js';
import { checkAndCompile } from '../spec/validate.js';
import { ConfigError, loadCompositeFile } from './config.js';
import type { CompositeFile } from './config-types.js';

/** The most files one pattern may name. */
const MAX_FILES_PER_PATTERN = 500;

/** The files the patterns name, in order, each once. */
export async function compositePaths(patterns: readonly string[], base: string): Promise<string[]> {
  const files: string[] = [];
  for (const pattern of patterns) {
    const absolute = path.resolve(base, pattern);
    const name = path.basename(absolute);
    if (!name.includes('*')) {
      files.push(absolute);
      continue;
    }
    const folder = path.dirname(absolute);
    if (folder.includes('*')) throw new ConfigError([`composites: "${pattern}": * may stand only in the file name, not in a folder`]);
    const matcher = new RegExp(`^${name.split('*').map(escapeRegExp).join('[^/]*')}$`, 'u');
    let entries: string[];
    try {
      entries = (await readdir(folder)).filter((entry) => matcher.test(entry)).sort();
    } catch {
      throw new ConfigError([`composites: "${pattern}": the folder ${folder} cannot be read`]);
    }
    files.push(...entries.slice(0, MAX_FILES_PER_PATTERN).map((entry) => path.join(folder, entry)));
  }
  return [...new Set(files)];
}

/** Read every composite file; a file that is wrong is reported, and the others are still read. */
export async function loadComposites(patterns: readonly string[], base: string): Promise<{ composites: CompositeFile[]; problems: string[] }> {
  const composites: CompositeFile[] = [];
  const problems: string[] = [];
  let files: string[];
  try {
    files = await compositePaths(patterns, base);
  } catch (error) {
    return { composites, problems: error instanceof ConfigError ? error.problems : [String(error)] };
  }
  for (const file of files) {
    try {
      composites.push(await loadCompositeFile(file));
    } catch (error) {
      problems.push(...(error instanceof ConfigError ? error.problems : [`${file}: ${String(error)}`]));
    }
  }
  return { composites, problems };
}

/**
 * The composites of a config that reach themselves, directly or through other composites of the
 * same config (a → b → a), or reach a cycle further down: by name, the problem to report. Found
 * from the files alone, before any is built: each is built only once the tools it calls are
 * registered, so a cycle among them would otherwise read as a tool that does not exist.
 */
export function compositeCycles(composites: readonly CompositeFile[]): Map<string, string> {
  // Every call each spec may make, with its step's label; a spec that does not compile makes none here (its build reports it).
  const callsOf = new Map<string, readonly { label: string; tool: string }[]>();
  for (const composite of composites) {
    const checked = checkAndCompile(composite.spec, { strict: false, stepTimeoutMs: DEFAULT_STEP_TIMEOUT_MS });
    callsOf.set(composite.name, checked.plan?.leaves ?? []);
  }
  const stepToolsOf = (name: string): readonly string[] | undefined => callsOf.get(name)?.map((call) => call.tool);
  const problems = new Map<string, string>();
  for (const composite of composites) {
    const searched = new Set<string>();
    for (const call of callsOf.get(composite.name) ?? []) {
      const cycle = cycleFrom(composite.name, call.tool, stepToolsOf, searched);
      if (cycle) {
        problems.set(composite.name, cycleProblem(cycle, call.label, call.tool));
        break;
      }
    }
  }
  return problems;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}
