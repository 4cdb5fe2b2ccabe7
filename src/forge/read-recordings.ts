/**
 * Reading a folder of recordings back: each `.jsonl` file one session, each line one call. Every
 * bound is checked (files read, bytes of a file, characters of a line, calls in all); what is left
 * out or cannot be read is said in `problems`, and the rest is read.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { failure } from '../codes.js';
import type { ToolExecutionResult } from '../tool.js';
import { RECORD_VERSION, type CallRecord } from './record-format.js';

/**
 * One recorded session: its calls in the order they ended.
 *
 * @category Forge: composites from recordings
 */
export interface RecordedSession {
  /** The file it was read from (or a name for one given as text). */
  file: string;
  /** Its calls. */
  calls: CallRecord[];
}

/**
 * The bounds of {@link readRecordings}.
 *
 * @category Forge: composites from recordings
 */
export interface ReadRecordingsOptions {
  /** The most session files read (default 10000); past it, the newest by name are left out. */
  maxFiles?: number;
  /** The most bytes of one file (default 64 MiB); a larger file is left out. */
  maxFileBytes?: number;
  /** The most characters of one line (default 4 MiB); a longer line is left out. */
  maxLineChars?: number;
  /** The most calls read in all (default 1,000,000); past it, reading stops. */
  maxCalls?: number;
}

/**
 * What {@link readRecordings} read.
 *
 * @category Forge: composites from recordings
 */
export interface Recordings {
  /** The sessions, in file-name order (recordings are named by time). */
  sessions: RecordedSession[];
  /** What was left out, and why, one line each. */
  problems: string[];
}

const DEFAULTS = { maxFiles: 10_000, maxFileBytes: 64 * 1024 * 1024, maxLineChars: 4 * 1024 * 1024, maxCalls: 1_000_000 };

/**
 * Read every `.jsonl` file of `dir` as one session.
 *
 * A folder that cannot be read is a failure
 * (`recordings_unreadable`); a file or line that cannot be read is a problem, and the rest is read.
 *
 * @param dir - the folder `toolweave mcp --record` wrote
 * @param options - the bounds
 *
 * @category Forge: composites from recordings
 */
export async function readRecordings(dir: string, options: ReadRecordingsOptions = {}): Promise<ToolExecutionResult<Recordings>> {
  const bounds = { ...DEFAULTS, ...options };
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.jsonl')).sort();
  } catch (error) {
    return failure('recordings_unreadable', `The recordings folder ${dir} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`, { dir });
  }
  const problems: string[] = [];
  if (names.length > bounds.maxFiles) {
    problems.push(`${names.length - bounds.maxFiles} session files past the first ${bounds.maxFiles} were not read`);
    names = names.slice(0, bounds.maxFiles);
  }
  const sessions: RecordedSession[] = [];
  let calls = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const size = (await stat(file)).size;
      if (size > bounds.maxFileBytes) {
        problems.push(`${file}: ${size} bytes, past the bound of ${bounds.maxFileBytes}; not read`);
        continue;
      }
      const session = parseRecording(await readFile(file, 'utf8'), file, { ...bounds, maxCalls: bounds.maxCalls - calls }, problems);
      calls += session.calls.length;
      if (session.calls.length) sessions.push(session);
      if (calls >= bounds.maxCalls) {
        problems.push(`reading stopped at ${bounds.maxCalls} calls`);
        break;
      }
    } catch (error) {
      problems.push(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  }
  return { success: true, output: { sessions, problems } };
}

/**
 * Read one session's `.jsonl` file.
 *
 * A file that cannot be read, or is past the file bound, is a failure (`recordings_unreadable`);
 * a line that cannot be read is a problem, and the rest is read.
 *
 * @param file - one file `toolweave mcp --record` wrote
 * @param options - the bounds
 *
 * @category Forge: composites from recordings
 */
export async function readRecordingFile(file: string, options: ReadRecordingsOptions = {}): Promise<ToolExecutionResult<Recordings>> {
  const bounds = { ...DEFAULTS, ...options };
  try {
    const size = (await stat(file)).size;
    if (size > bounds.maxFileBytes) return failure('recordings_unreadable', `The recording ${file} has ${size} bytes, past the bound of ${bounds.maxFileBytes}.`, { file });
    const problems: string[] = [];
    const session = parseRecording(await readFile(file, 'utf8'), file, bounds, problems);
    return { success: true, output: { sessions: session.calls.length ? [session] : [], problems } };
  } catch (error) {
    return failure('recordings_unreadable', `The recording ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`, { file });
  }
}

/**
 * One session from the text of its file: every line a call of the current format is kept; a line
 * too long, not JSON or of another version is said in `problems`.
 *
 * @param text - the file's text
 * @param file - its name, for messages
 * @param options - the line bound and the most calls kept
 * @param problems - where problems are added
 */
function parseRecording(text: string, file: string, options: Pick<ReadRecordingsOptions, 'maxLineChars' | 'maxCalls'> = {}, problems: string[] = []): RecordedSession {
  const maxLine = options.maxLineChars ?? DEFAULTS.maxLineChars;
  const maxCalls = options.maxCalls ?? DEFAULTS.maxCalls;
  const calls: CallRecord[] = [];
  let bad = 0;
  let start = 0;
  let number = 0;
  while (start < text.length && calls.length < maxCalls) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    number++;
    if (!line.trim()) continue;
    if (line.length > maxLine) {
      problems.push(`${file}:${number}: ${line.length} characters, past the bound of ${maxLine}; left out`);
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      bad++;
      continue;
    }
    if (isCall(value)) calls.push(value);
    else if (!(typeof value === 'object' && value !== null && (value as { cut?: unknown }).cut === true)) bad++;
  }
  if (bad) problems.push(`${file}: ${bad} lines are not calls of recording format ${RECORD_VERSION}; left out`);
  return { file, calls };
}

function isCall(value: unknown): value is CallRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<CallRecord>;
  return record.v === RECORD_VERSION && typeof record.tool === 'string' && typeof record.ok === 'boolean' && typeof record.step === 'string';
}
