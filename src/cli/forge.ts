/**
 * `toolweave forge <dir> --out <dir>`: read the recordings `toolweave mcp --record` wrote, find the
 * chains seen in at least `--min-sessions` sessions, and write each as a composite file with
 * examples from the recordings. It writes files and changes nothing that runs: a forged composite
 * is served only once a person adds it to a config's `composites` (and `toolweave check` passes).
 * `toolweave forge --from-run <file or dir> --run <id> --out <dir>` forges one recorded run instead.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { forgeFromRun, generalizeChain, mineChains, readRecordingFile, readRecordings, type ForgedComposite } from '../index.js';

/** What `toolweave forge` was asked to do. */
export interface ForgeRequest {
  /** The recordings folder. */
  recordings: string;
  /** Where the composite files go. */
  out: string;
  /** The fewest sessions a chain must be seen in. */
  minSessions: number;
  /** Forge this one run (the recordings are then a file or a folder). */
  run?: string;
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

/** Read, mine, generalize, write; with `run`, forge that one run instead. */
export async function runForge(request: ForgeRequest): Promise<ForgeReport> {
  if (request.run !== undefined) return forgeOneRun(request, request.run);
  const read = await readRecordings(request.recordings);
  if (!read.success) return { lines: [], problems: [`${String(read.details?.code)}: ${read.error ?? ''}`], ok: false };
  const { sessions, problems } = read.output!;
  const calls = sessions.reduce((sum, session) => sum + session.calls.filter((call) => call.isRun !== true).length, 0);
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
    const { sideEffectingSteps } = forged;
    const written = await writeComposite(file, forged);
    if (written) return { lines, problems: [...problems, written], ok: false };
    const effects = sideEffectingSteps.length ? `; side-effecting: ${sideEffectingSteps.join(', ')}` : '';
    lines.push(`forged ${forged.name}: ${shape.steps.length} steps, seen in ${shape.sessions} sessions, ${forged.examples.length} examples${effects} -> ${file}`);
  }
  lines.push(`${shapes.length} composite files written; none is served until you add it to a config's composites and toolweave check passes`);
  return { lines, problems, ok: true };
}

/**
 * `forge --from-run`: one run of the recording (a file, or every file of a folder) as one
 * composite file; a run that cannot be forged says why, and nothing is written.
 */
async function forgeOneRun(request: ForgeRequest, run: string): Promise<ForgeReport> {
  let isFile = false;
  try {
    isFile = (await stat(request.recordings)).isFile();
  } catch {
    // readRecordings says what is wrong with a path that cannot be read.
  }
  const read = isFile ? await readRecordingFile(request.recordings) : await readRecordings(request.recordings);
  if (!read.success) return { lines: [], problems: [`${String(read.details?.code)}: ${read.error ?? ''}`], ok: false };
  const { sessions, problems } = read.output!;
  const forged = forgeFromRun(sessions, run);
  if (!forged.success) return { lines: [], problems: [...problems, `${String(forged.details?.code)}: ${forged.error ?? ''}`], ok: false };
  const composite = forged.output!;
  try {
    await mkdir(request.out, { recursive: true });
  } catch (error) {
    return { lines: [], problems: [...problems, `${request.out}: cannot be made (${(error as NodeJS.ErrnoException).code ?? String(error)})`], ok: false };
  }
  const file = path.join(request.out, `${composite.name}.json`);
  const written = await writeComposite(file, composite);
  if (written) return { lines: [], problems: [...problems, written], ok: false };
  const effects = composite.sideEffectingSteps.length ? `; side-effecting: ${composite.sideEffectingSteps.join(', ')}` : '';
  return {
    lines: [
      `forged ${composite.name} from run ${run}: ${composite.spec.steps.length} steps${effects} -> ${file}`,
      "it is not served until you add it to a config's composites and toolweave check passes",
    ],
    problems,
    ok: true,
  };
}

/** Write a forged composite as a composite file; the problem, or `undefined` once written. */
async function writeComposite(file: string, forged: ForgedComposite): Promise<string | undefined> {
  const { sideEffectingSteps, ...rest } = forged;
  const body = { ...rest, ...(sideEffectingSteps.length ? { sideEffectingSteps } : {}) };
  try {
    await writeFile(file, `${JSON.stringify(body, null, 2)}\n`);
    return undefined;
  } catch (error) {
    return `${file}: cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
}
