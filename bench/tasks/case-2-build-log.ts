/**
 * Case 2: the failures in the 900-line build log. The model does not know the log's format, so
 * it reads the log first in every way. Direct (and pipeline: one call is not batched) it gets
 * the whole log; with observations it gets a 40-line preview and an obs_ id, learns the format
 * from the preview, and searches the log for its ERROR lines.
 */
import { readMatches, type TaskCase } from './case.js';

const LOG = 'logs/build.log';

/** The model's reading of the failures: the ERROR lines, with their line numbers. */
export function failuresAnswer(errors: readonly { line: number; text: string }[]): string {
  const items = errors.map((e) => `line ${e.line}: ${e.text.slice(e.text.indexOf(' ERROR ') + ' ERROR '.length)}`);
  return `${items.length} failures:\n${items.join('\n')}`;
}

/** The ERROR lines of the whole log. */
function errorsOf(log: string): { line: number; text: string }[] {
  return log.split('\n').flatMap((text, i) => (text.includes(' ERROR ') ? [{ line: i + 1, text }] : []));
}

async function readWhole(c: Parameters<TaskCase['ways']['direct']>[0]): Promise<string> {
  return failuresAnswer(errorsOf(await c.call('read_file', { path: LOG })));
}

export const buildLog: TaskCase = {
  id: 2,
  name: 'failures in a 900-line build log',
  large: true,
  task: `The last CI build failed. Which failures does ${LOG} report? Give each with its line number.`,
  ways: {
    direct: readWhole,
    pipeline: readWhole,
    async script(c) {
      const preview = await c.call('read_file', { path: LOG });
      // The preview is partial (its footer names an obs_ id); it shows the format: time, level, message.
      if (!/\[obs_\w+: \d+ lines/.test(preview)) throw new Error('expected a stored preview of the log');
      const level = /^\S+ (INFO|WARN|ERROR) /m.exec(preview)?.[1];
      if (!level) throw new Error('the preview does not show the log format');
      const hits = readMatches(await c.call('grep_files', { pattern: ' ERROR ', path: LOG }));
      return failuresAnswer(hits);
    },
  },
};
