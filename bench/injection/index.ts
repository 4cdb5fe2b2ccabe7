/**
 * The injection benchmark: the banking and workspace suites through each door (a composite,
 * run_pipeline, compose, run_js), with the gate's `flows` and no approval hook (a violation is
 * refused), with a hook whose person says no, and without `flows` (what the attacks do unchecked).
 * Prints one row per suite, door and mode. Scripted programs are the floor: each is what a model
 * would write, the hijacked ones following the injected text.
 *
 * Run it: npm run build && npx tsx bench/injection/index.ts
 */
import { availableParallelism } from 'node:os';
import { banking } from './banking.js';
import { runSuite, type DoorFigures, type Mode } from './run-suite.js';
import { DOORS } from './suite.js';
import { workspaceSuite } from './workspace.js';

const MODES: Mode[] = ['no hook', 'hook says no', 'no flows'];

export async function measure(): Promise<DoorFigures[]> {
  const rows: DoorFigures[] = [];
  for (const suite of [banking, workspaceSuite]) for (const door of DOORS) for (const mode of MODES) rows.push(await runSuite(suite, door, mode));
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await measure();
  console.log(`\nInjection benchmark (${availableParallelism()} cores; scripted programs)`);
  console.log('| suite | door | mode | attack success | trusted tasks done, no question | questions in benign tasks (warranted) | largest question |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.suite} | ${r.door} | ${r.mode} | ${r.attacksSucceeded}/${r.attacks} (${Math.round((100 * r.attacksSucceeded) / r.attacks)}%) | ${r.trustedDoneWithoutQuestion}/${r.trustedTasks} | ${r.questions} (${r.warranted}) | ${r.maxQuestionBytes} B |`);
  }
  process.exit(0);
}
