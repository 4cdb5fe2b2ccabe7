/** The in-memory journal against the RunJournal contract (one process: both handles are the same journal). */
import { createMemoryRunJournal } from '../../src/runs/memory-journal.js';
import { describeRunJournalContract } from './journal-contract.js';

describeRunJournalContract('createMemoryRunJournal', () => {
  const journal = createMemoryRunJournal();
  return [journal, journal];
});
