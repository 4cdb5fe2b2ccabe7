/**
 * Case 3: count the TODO comments per folder across the thirty source files. The folders are
 * found by listing src/; then one counting search per folder (grep_files with count).
 */
import { callPipeline, scriptAnswer, type TaskCase } from './case.js';

/** The answer: each folder's count, then the total. */
export function countsAnswer(counts: readonly { folder: string; count: number }[]): string {
  const total = counts.reduce((sum, c) => sum + c.count, 0);
  return `${counts.map((c) => `src/${c.folder}: ${c.count}`).join(', ')} (total ${total})`;
}

/** The folders of a list_dir result (entries with a trailing slash). */
function foldersOf(listing: string): string[] {
  return listing.split('\n').filter((n) => n.endsWith('/')).map((n) => n.slice(0, -1));
}

const countArgs = (folder: string) => ({ pattern: 'TODO', path: `src/${folder}`, count: true });

const SCRIPT = `const list = await callTool('list_dir', { path: 'src' });
const folders = list.text.split('\\n').filter((n) => n.endsWith('/')).map((n) => n.slice(0, -1));
const counts = await Promise.all(folders.map((f) => callTool('grep_files', { pattern: 'TODO', path: 'src/' + f, count: true })));
const total = counts.reduce((sum, c) => sum + Number(c.text), 0);
return folders.map((f, i) => 'src/' + f + ': ' + counts[i].text).join(', ') + ' (total ' + total + ')';`;

export const countPerFolder: TaskCase = {
  id: 3,
  name: 'count a pattern per folder (30 files)',
  large: true,
  task: 'How many TODO comments are there in each folder under src/? Give the count per folder and the total.',
  ways: {
    async direct(c) {
      const folders = foldersOf(await c.call('list_dir', { path: 'src' }));
      const counts: { folder: string; count: number }[] = [];
      for (const folder of folders) counts.push({ folder, count: Number(await c.call('grep_files', countArgs(folder))) });
      return countsAnswer(counts);
    },
    async pipeline(c) {
      const folders = foldersOf(await c.call('list_dir', { path: 'src' }));
      const out = await callPipeline(c, {
        steps: folders.map((folder) => ({ id: folder, tool: 'grep_files', args: countArgs(folder) })),
      });
      return countsAnswer(folders.map((folder) => ({ folder, count: Number(out[folder]) })));
    },
    async script(c) {
      await c.call('run_js', { intention: 'count TODO lines per folder of src', code: SCRIPT });
      return scriptAnswer(c);
    },
  },
};
