/**
 * Case 4: the edit-and-test task of 15 direct calls: 3 lists, a test run, 4 reads, 5 edits, a
 * test run, a write. Rename fetchUser to loadUser in four files (five places), check the tests
 * pass, and write a note. The edits really change the temporary copy, and the tests really pass.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { callPipeline, scriptAnswer, type TaskCase } from './case.js';

export const FOLDERS = ['src/lib', 'src/api', 'src/jobs'];
export const FILES = ['src/lib/users.js', 'src/lib/session.js', 'src/api/profile.js', 'src/jobs/sync.js'];
export const NOTE_PATH = 'docs/rename.md';

export const RENAME_TASK =
  'Rename the function fetchUser to loadUser. It is defined, and used once more, in src/lib/users.js, and used once in each of ' +
  'src/lib/session.js, src/api/profile.js and src/jobs/sync.js. The tests expect the new name. Look at the three folders ' +
  `and run the tests first, make the change, check the tests pass, then write ${NOTE_PATH} saying what changed.`;

/** The answer, and the note's text. */
export function renameSummary(edits: number, files: readonly string[]): string {
  return `Renamed fetchUser to loadUser: ${edits} edits in ${files.length} files (${files.join(', ')}); tests pass; wrote ${NOTE_PATH}.`;
}

/** The model's edits: for each line that uses fetchUser, that line with the new name. */
export function editsFor(file: string, text: string): { path: string; find: string; replace: string }[] {
  return text.split('\n').filter((l) => l.includes('fetchUser')).map((l) => {
    const find = l.trim();
    return { path: file, find, replace: find.replace('fetchUser', 'loadUser') };
  });
}

/** The repository after the task: no fetchUser left, the tests' expectations met, the note written. */
export async function verifyRename(root: string): Promise<string | undefined> {
  for (const file of FILES) {
    if ((await fs.readFile(path.join(root, file), 'utf8')).includes('fetchUser')) return `${file} still uses fetchUser`;
  }
  for (const name of await fs.readdir(path.join(root, 'test'))) {
    const spec = JSON.parse(await fs.readFile(path.join(root, 'test', name), 'utf8')) as { file: string; expect: { contains: string }[] };
    const text = await fs.readFile(path.join(root, spec.file), 'utf8');
    for (const e of spec.expect) if (!text.includes(e.contains)) return `test/${name}: ${spec.file} lacks ${JSON.stringify(e.contains)}`;
  }
  const note = await fs.readFile(path.join(root, NOTE_PATH), 'utf8').catch(() => undefined);
  return note === undefined ? `${NOTE_PATH} was not written` : undefined;
}

function testsPassed(text: string): boolean {
  return (JSON.parse(text) as { passed: boolean }).passed;
}

const SCRIPT = `const folders = ${JSON.stringify(FOLDERS)};
const files = ${JSON.stringify(FILES)};
const listed = await Promise.all(folders.map((path) => callTool('list_dir', { path })));
const missing = files.filter((f) => !listed[folders.indexOf(f.slice(0, f.lastIndexOf('/')))].text.split('\\n').includes(f.slice(f.lastIndexOf('/') + 1)));
if (missing.length) return 'not found: ' + missing.join(', ');
const before = JSON.parse((await callTool('run_tests', {})).text);
const reads = await Promise.all(files.map((path) => callTool('read_file', { path })));
let edits = 0;
for (let i = 0; i < files.length; i++) {
  for (const line of reads[i].text.split('\\n').filter((l) => l.includes('fetchUser'))) {
    const find = line.trim();
    const edit = await callTool('edit_file', { path: files[i], find, replace: find.replace('fetchUser', 'loadUser') });
    if (edit.error) return 'edit failed: ' + edit.error.message;
    edits++;
  }
}
const after = JSON.parse((await callTool('run_tests', {})).text);
if (!after.passed) return 'tests still fail (' + before.failures.length + ' before): ' + after.failures.join('; ');
const summary = 'Renamed fetchUser to loadUser: ' + edits + ' edits in ' + files.length + ' files (' + files.join(', ') + '); tests pass; wrote ${NOTE_PATH}.';
const wrote = await callTool('write_file', { path: '${NOTE_PATH}', content: summary + '\\n' });
return wrote.error ? 'write failed: ' + wrote.error.message : summary;`;

export const editAndTest: TaskCase = {
  id: 4,
  name: 'edit-and-test (15 direct calls)',
  large: true,
  task: RENAME_TASK,
  ways: {
    async direct(c) {
      for (const folder of FOLDERS) await c.call('list_dir', { path: folder });
      await c.call('run_tests', {});
      const edits: ReturnType<typeof editsFor> = [];
      for (const file of FILES) edits.push(...editsFor(file, await c.call('read_file', { path: file })));
      for (const edit of edits) await c.call('edit_file', edit);
      if (!testsPassed(await c.call('run_tests', {}))) throw new Error('the tests still fail');
      const summary = renameSummary(edits.length, FILES);
      await c.call('write_file', { path: NOTE_PATH, content: `${summary}\n` });
      return summary;
    },
    async pipeline(c) {
      // The reads wait for the lists and the first test run; the edits wait for the reads; the
      // note waits for the tests to pass: four batches, each after judging the one before.
      await c.call('run_pipeline', {
        steps: [...FOLDERS.map((folder, i) => ({ id: `list_${i + 1}`, tool: 'list_dir', args: { path: folder } })), { id: 'tests', tool: 'run_tests', args: {} }],
      });
      const reads = await callPipeline(c, {
        steps: FILES.map((file, i) => ({ id: `read_${i + 1}`, tool: 'read_file', args: { path: file } })),
      });
      const edits = FILES.flatMap((file, i) => editsFor(file, String(reads[`read_${i + 1}`])));
      const after = await callPipeline(c, {
        steps: [...edits.map((edit, i) => ({ id: `edit_${i + 1}`, tool: 'edit_file', args: edit })), { id: 'tests', tool: 'run_tests', args: {} }],
      });
      if (!(after.tests as { passed: boolean }).passed) throw new Error('the tests still fail');
      const summary = renameSummary(edits.length, FILES);
      await c.call('write_file', { path: NOTE_PATH, content: `${summary}\n` });
      return summary;
    },
    async script(c) {
      await c.call('run_js', { intention: 'rename fetchUser to loadUser, test, write the note', code: SCRIPT });
      return scriptAnswer(c);
    },
  },
  verify: verifyRename,
};
