/**
 * The small controls: a two-byte file read and a three-entry listing. In every way the model
 * calls the base tool directly; the batching tools are offered (and paid for) all the same.
 */
import type { TaskCase } from './case.js';

async function readVersion(c: Parameters<TaskCase['ways']['direct']>[0]): Promise<string> {
  return `The version is ${(await c.call('read_file', { path: 'VERSION' })).trim()}.`;
}

async function listConfig(c: Parameters<TaskCase['ways']['direct']>[0]): Promise<string> {
  const entries = (await c.call('list_dir', { path: 'config' })).split('\n').filter(Boolean);
  return `config/ holds ${entries.length} entries: ${entries.join(', ')}`;
}

export const twoByteRead: TaskCase = {
  id: 7,
  name: 'control: two-byte file read',
  large: false,
  task: 'What version number is in the VERSION file?',
  ways: { direct: readVersion, pipeline: readVersion, script: readVersion },
};

export const threeEntryListing: TaskCase = {
  id: 8,
  name: 'control: three-entry listing',
  large: false,
  task: 'What is in the config folder?',
  ways: { direct: listConfig, pipeline: listConfig, script: listConfig },
};
