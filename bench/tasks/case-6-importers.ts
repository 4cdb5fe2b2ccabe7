/**
 * Case 6: which files import src/lib/db.js. One search finds every import of a module named
 * db; the model resolves each relative path against its file (src/jobs/nightly.js imports
 * src/jobs/db.js, a different module). One call in every way: a single call is not batched.
 */
import path from 'node:path';
import { readMatches, type TaskCase } from './case.js';

const MODULE = 'src/lib/db.js';
const GREP = { pattern: "(from |require\\()'[^']*/db(\\.js)?'", path: 'src' };

/** The model's reading of the matches: the files whose import resolves to the module. */
export function importersAnswer(grepText: string): string {
  const files = new Set<string>();
  for (const m of readMatches(grepText)) {
    const spec = /'([^']+)'/.exec(m.text)?.[1];
    if (!spec) continue;
    let target = path.posix.normalize(path.posix.join(path.posix.dirname(m.file), spec));
    if (!target.endsWith('.js')) target += '.js';
    if (target === MODULE) files.add(m.file);
  }
  const sorted = [...files].sort();
  return `${sorted.length} files import ${MODULE}: ${sorted.join(', ')}`;
}

async function oneSearch(c: Parameters<TaskCase['ways']['direct']>[0]): Promise<string> {
  return importersAnswer(await c.call('grep_files', GREP));
}

export const importers: TaskCase = {
  id: 6,
  name: 'which files import a module',
  large: true,
  task: `Which files import the database module ${MODULE} (by import or require)?`,
  ways: { direct: oneSearch, pipeline: oneSearch, script: oneSearch },
};
