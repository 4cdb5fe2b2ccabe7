/**
 * The host's half of what crosses the sandbox's boundary: a call's answer encoded to go in, a
 * batch of texts framed into one string and back, and a call read from the form the prelude
 * writes it in. Only strings cross (no host object is ever handed in), and a turn's calls and a
 * turn's answers each cross as one string, which costs far less than a crossing per call. The
 * sandbox's half is written in the prelude's source (`prelude-source.ts`); the two must agree.
 */

/**
 * How a call's answer travels into the sandbox: `"T" + text` for a result, `"V" + JSON` for a
 * result given as a value (`tools.<name>()`, `searchTools`, `describeTools`), and `"E" + JSON of
 * the error` for a refusal or failure, so a result's text needs no JSON at all.
 */
export function encodeAnswer(text: string, error: unknown, value?: string): string {
  if (error !== null && error !== undefined) return `E${JSON.stringify(error)}`;
  return value === undefined ? `T${text}` : `V${value}`;
}

/**
 * Several texts as one string, each as its length, `|`, then the text: how a batch of calls
 * leaves the sandbox and a batch of answers enters it, in one crossing each way.
 */
export function frame(texts: readonly string[]): string {
  let out = '';
  for (const text of texts) out += `${text.length}|${text}`;
  return out;
}

/** The texts {@link frame} (or the prelude) put in one string, starting at `from`. */
export function unframe(framed: string, from = 0): string[] {
  const texts: string[] = [];
  let at = from;
  while (at < framed.length) {
    const bar = framed.indexOf('|', at);
    const length = Number(framed.slice(at, bar));
    // The prelude always writes a length here; anything else means the text could not be read.
    if (bar < 0 || !Number.isSafeInteger(length) || length < 0) throw new Error('the calls could not be read from the sandbox');
    texts.push(framed.slice(bar + 1, bar + 1 + length));
    at = bar + 1 + length;
  }
  return texts;
}

/**
 * What a call asks of the host: a tool's result as `{ text, error }` (`callTool`), a tool's result
 * as a value, thrown when it fails (`tools.<name>()`), or the catalog (`searchTools`,
 * `describeTools`, which call no tool).
 */
export type CallMode = 'call' | 'value' | 'search' | 'describe';

/** The character each {@link CallMode} is written as. */
const MODES: Record<string, CallMode> = { c: 'call', v: 'value', s: 'search', d: 'describe' };

/** A call as the prelude hands it out: its index, its tool's name, and its args. */
export interface EncodedCall {
  /** The call's number in the run: 1, 2, ... */
  index: number;
  /** What it asks (see {@link CallMode}). */
  mode: CallMode;
  /** The tool's name (for a search or a description, the function's). */
  name: string;
  /** The args as JSON text; `null` when they are not a plain object JSON can write. */
  args: string | null;
  /** When the args were too long to send: their length in UTF-16 units (a lower bound on their bytes). */
  tooLong?: number;
  /** The call site of an instrumented script that made the call (see `script-instrument.ts`). */
  site?: number;
}

/**
 * Read a call the prelude encoded: `index:nameLength:name`, its mode (`c`, `v`, `s` or `d`; see
 * {@link CallMode}), `"@" + site + ";"` when a site of an instrumented script made it, then
 * `"J" + JSON` for the args, `"L" + length` for args too long to send (they stay in the sandbox),
 * or nothing for args that are not a plain object.
 */
export function decodeCall(encoded: string): EncodedCall {
  const first = encoded.indexOf(':');
  const second = encoded.indexOf(':', first + 1);
  const index = Number(encoded.slice(0, first));
  if (!Number.isSafeInteger(index) || index < 1) throw new Error('the calls could not be read from the sandbox');
  const nameEnd = second + 1 + Number(encoded.slice(first + 1, second));
  const name = encoded.slice(second + 1, nameEnd);
  const mode = MODES[encoded[nameEnd]];
  if (mode === undefined) throw new Error('the calls could not be read from the sandbox');
  let at = nameEnd + 1;
  let site: number | undefined;
  if (encoded[at] === '@') {
    const end = encoded.indexOf(';', at);
    site = Number(encoded.slice(at + 1, end));
    if (end < 0 || !Number.isSafeInteger(site) || site < 0) throw new Error('the calls could not be read from the sandbox');
    at = end + 1;
  }
  const call: EncodedCall = { index, mode, name, args: null, ...(site !== undefined ? { site } : {}) };
  const kind = encoded[at];
  if (kind === 'J') call.args = encoded.slice(at + 1);
  else if (kind === 'L') call.tooLong = Number(encoded.slice(at + 1));
  return call;
}
