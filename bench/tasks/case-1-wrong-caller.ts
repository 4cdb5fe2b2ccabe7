/**
 * Case 1: find where the cache key is built, check the three callers, and say which one passes
 * the wrong argument. The call line reads `cacheKey(first, second)`: only the file says what
 * `first` and `second` are, so each caller must be read.
 */
import { readMatches, callPipeline, scriptAnswer, type TaskCase } from './case.js';

/** The model's judgement: which caller passes (region, user), from the callers' texts. */
export function judgeCallers(files: readonly { path: string; text: string }[]): string {
  const wrong: string[] = [];
  for (const { path, text } of files) {
    const call = /cacheKey\((\w+), (\w+)\)/.exec(text);
    if (!call) continue;
    const [a, b] = [call[1], call[2]];
    const defA = new RegExp(`const ${a} = ([^;]+);`).exec(text)?.[1] ?? a;
    const defB = new RegExp(`const ${b} = ([^;]+);`).exec(text)?.[1] ?? b;
    if (/region/i.test(defA) && /user/i.test(defB)) {
      wrong.push(`${path} passes (region, user): cacheKey(${a}, ${b}) with ${a} = ${defA}, ${b} = ${defB}`);
    }
  }
  return wrong.length ? wrong.join('\n') : 'every caller passes (user, region)';
}

const GREP = { pattern: 'cacheKey\\(', path: 'src' };

/** The callers among the grep hits: every matching file but the definition's. */
function callerFiles(grepText: string): string[] {
  return [...new Set(readMatches(grepText).filter((m) => !m.text.includes('function cacheKey')).map((m) => m.file))];
}

const SCRIPT = `const hits = await callTool('grep_files', { pattern: 'cacheKey\\\\(', path: 'src' });
const files = [...new Set(hits.text.split('\\n').filter((l) => l && !l.includes('function cacheKey')).map((l) => l.split(':')[0]))];
const reads = await Promise.all(files.map((path) => callTool('read_file', { path })));
const wrong = [];
reads.forEach((read, i) => {
  const call = /cacheKey\\((\\w+), (\\w+)\\)/.exec(read.text);
  if (!call) return;
  const def = (name) => (new RegExp('const ' + name + ' = ([^;]+);').exec(read.text) || [])[1] || name;
  const [a, b] = [call[1], call[2]];
  if (/region/i.test(def(a)) && /user/i.test(def(b))) {
    wrong.push(files[i] + ' passes (region, user): cacheKey(' + a + ', ' + b + ') with ' + a + ' = ' + def(a) + ', ' + b + ' = ' + def(b));
  }
});
return wrong.length ? wrong.join('\\n') : 'every caller passes (user, region)';`;

export const wrongCaller: TaskCase = {
  id: 1,
  name: 'wrong cacheKey caller',
  large: true,
  task: 'Find where the cache key is built, check the three callers of cacheKey, and tell me which one passes the wrong argument.',
  ways: {
    async direct(c) {
      const files = callerFiles(await c.call('grep_files', GREP));
      const read: { path: string; text: string }[] = [];
      for (const path of files) read.push({ path, text: await c.call('read_file', { path }) });
      return judgeCallers(read);
    },
    async pipeline(c) {
      const files = callerFiles(await c.call('grep_files', GREP));
      const out = await callPipeline(c, {
        steps: files.map((path, i) => ({ id: `read_${i + 1}`, tool: 'read_file', args: { path } })),
      });
      return judgeCallers(files.map((path, i) => ({ path, text: String(out[`read_${i + 1}`]) })));
    },
    async script(c) {
      await c.call('run_js', { intention: 'find the cacheKey caller with swapped arguments', code: SCRIPT });
      return scriptAnswer(c);
    },
  },
};
