/**
 * The composite files a config names: each pattern relative to the config's folder, where `*`
 * matches within one folder (`specs/*.yaml`); each file read and checked.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, loadCompositeFile, type CompositeFile } from './config.js';

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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}
