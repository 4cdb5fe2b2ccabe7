/**
 * `toolweave forge <dir> --out <dir>`: read the recordings `toolweave mcp --record` wrote, find the
 * chains seen in at least `--min-sessions` sessions, and write each as a composite file with
 * examples from the recordings. It writes files and changes nothing that runs: a forged composite
 * is served only once a person adds it to a config's `composites` (and `toolweave check` passes).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generalizeChain, mineChains, readRecordings } from '../index.js';

/** What `toolweave forge` was asked to do. */
export interface ForgeRequest {
  /** The recordings folder. */
  recordings: string;
  /** Where the composite files go. */
  out: string;
  /** The fewest sessions a chain must be seen in. */
  minSessions: number;
}

/** What it did: one line each, and whether it could. */
export interface ForgeReport {
  /** Lines for the person: what was read, each composite written, what to do next. */
  lines: string[];
  /** Problems met on the way (files or lines left out). */
  problems: string[];
  /** False when the recordings could not be read or the files not written. */
  ok: boolean;
}

/** Read, mine, generalize, write. */
export async function runForge(request: ForgeRequest): Promise<ForgeReport> {
  const read = await readRecordings(request.recordings);
  if (!read.success) return { lines: [], problems: [`${String(read.details?.code)}: ${read.error ?? ''}`], ok: false };
  const { sessions, problems } = read.output!;
  const calls = sessions.reduce((sum, session) => sum + session.calls.length, 0);
  const lines = [`read ${sessions.length} sessions, ${calls} calls, from ${request.recordings}`];
  const shapes = mineChains(sessions, { minSessions: request.minSessions });
  if (shapes.length === 0) {
    lines.push(`no chain is seen in ${request.minSessions} sessions or more; nothing forged`);
    return { lines, problems, ok: true };
  }
  try {
    await mkdir(request.out, { recursive: true });
  } catch (error) {
    return { lines, problems: [...problems, `${request.out}: cannot be made (${(error as NodeJS.ErrnoException).code ?? String(error)})`], ok: false };
  }
  const taken = new Set<string>();
  for (const shape of shapes) {
    const forged = generalizeChain(shape, { takenNames: taken });
    const file = path.join(request.out, `${forged.name}.json`);
    const { sideEffectingSteps, ...rest } = forged;
    const body = { ...rest, ...(sideEffectingSteps.length ? { sideEffectingSteps } : {}) };
    try {
      await writeFile(file, `${JSON.stringify(body, null, 2)}\n`);
    } catch (error) {
      return { lines, problems: [...problems, `${file}: cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`], ok: false };
    }
    const effects = sideEffectingSteps.length ? `; side-effecting: ${sideEffectingSteps.join(', ')}` : '';
    lines.push(`forged ${forged.name}: ${shape.steps.length} steps, seen in ${shape.sessions} sessions, ${forged.examples.length} examples${effects} -> ${file}`);
  }
  lines.push(`${shapes.length} composite files written; none is served until you add it to a config's composites and toolweave check passes`);
  return { lines, problems, ok: true };
}
