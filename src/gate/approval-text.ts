/**
 * The text of an approval question, as a person reads it. Much of what it shows was chosen by a
 * model (a run_pipeline step id, a compose gather key, a script's intention, every argument name
 * and value), and a model that may write newlines, line separators or bidi overrides could write
 * lines that look like the screen's own ("Through: a direct call from the client") or push the
 * real ones out of sight. So each screen line starts with the screen's own label, and every value
 * after it is one line: a name or a string in quotes with every character that could break or fake
 * a layout escaped, each cut on its own and saying by how much, so a long value never hides the
 * next.
 */
import type { ApprovalAction } from './host-hooks.js';

/** The most characters a step's name shows. */
const STEP_CHARS = 200;
/** The most characters a script's intention shows. */
const INTENTION_CHARS = 500;
/** The most characters an argument's name shows. */
const NAME_CHARS = 100;
/** The most characters an argument's value shows. */
const VALUE_CHARS = 500;
/** The most characters a host-chosen name shows (the tool, a composite, a composition id). */
const HOST_NAME_CHARS = 200;
/** The most argument fields shown with their values. */
const MAX_FIELDS_WITH_VALUES = 40;
/** Past this many characters of argument lines, further fields are shown by name only. */
const ARGUMENT_LINES_CHARS = 6000;
/** The most characters of the names of the fields shown by name only. */
const NAMES_ONLY_CHARS = 2000;

/**
 * Every character that could end a line or change how the text around it looks without being
 * seen: controls (C0 and C1, tab, carriage return), format characters (bidi overrides and
 * isolates, zero-width ones, the byte order mark, tags), line and paragraph separators, every
 * space but the plain one, surrogates left alone, private-use and unassigned code points, and
 * the code points Unicode says draw nothing (variation selectors, fillers).
 */
const UNSAFE = /[\p{C}\p{Z}\p{Default_Ignorable_Code_Point}]/u;

/** One character as the screen shows it. */
function escaped(ch: string, quoted: boolean): string {
  switch (ch) {
    case ' ':
      return ch;
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    case '"':
      return quoted ? '\\"' : ch;
    case '\\':
      return quoted ? '\\\\' : ch;
  }
  if (!UNSAFE.test(ch)) return ch;
  const code = ch.codePointAt(0)!;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

/** The start of `text` escaped, at most `max` characters of it shown, and how many of its UTF-16 units that took. */
function bounded(text: string, max: number, quoted: boolean): { shown: string; used: number } {
  let shown = '';
  let used = 0;
  for (const ch of text) {
    const piece = escaped(ch, quoted);
    if (shown.length + piece.length > max) break;
    shown += piece;
    used += ch.length;
  }
  return { shown, used };
}

/**
 * Quote a value someone else chose so that an approval screen shows it safely, on one line.
 *
 * A string as an approval screen shows a value someone else chose: in double quotes, on one line,
 * with quotes, backslashes, controls, line and paragraph separators, bidi overrides, zero-width and
 * other invisible characters escaped (`\n`, `\u2028`, `\u202E`), and cut after `maxChars`
 * characters of shown text, saying how long it was. What it returns cannot start a line, end one,
 * or change how the text after it is laid out, whatever the string holds.
 *
 * @param value - the string, exactly as chosen
 * @param maxChars - the most characters shown between the quotes (default 500)
 *
 * @example
 * ```ts
 * screenQuote('save\nThrough: a direct call'); // '"save\\nThrough: a direct call"'
 * ```
 *
 * @category The gate
 */
export function screenQuote(value: string, maxChars: number = VALUE_CHARS): string {
  const text = String(value);
  const { shown, used } = bounded(text, maxChars, true);
  if (used === text.length) return `"${shown}"`;
  return `"${shown}…" (${text.length} characters; the first ${used} shown)`;
}

/** A name the host chose, on one line, escaped but not quoted. */
function hostName(value: string): string {
  const { shown, used } = bounded(value, HOST_NAME_CHARS, false);
  return used === value.length ? shown : `${shown}… (${value.length} characters)`;
}

/** An argument's value: a string quoted, anything else as compact JSON, each cut on its own. */
function shownValue(value: unknown): string {
  if (typeof value === 'string') return screenQuote(value, VALUE_CHARS);
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return '(a value that cannot be written as JSON)';
  }
  if (json === undefined) return `(${typeof value}: not a JSON value)`;
  // JSON escapes controls already, not line separators or bidi overrides: those are escaped here.
  const { shown, used } = bounded(json, VALUE_CHARS, false);
  return used === json.length ? shown : `${shown}… (${json.length} characters of JSON; the first ${used} shown)`;
}

/**
 * The argument lines: a count of the fields, then one line per field (its name quoted, its value
 * cut on its own) while there is room, then the remaining fields by name, then how many names are
 * not shown. No field is left out without the screen saying so.
 */
function argumentLines(args: unknown, mark: string): string[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return [`Arguments${mark}: ${shownValue(args)}`];
  let names: string[];
  try {
    names = Object.keys(args);
  } catch {
    return [`Arguments${mark}: (arguments that cannot be read)`];
  }
  if (names.length === 0) return [`Arguments${mark}: none`];
  const lines = [`Arguments${mark}, ${names.length} field${names.length === 1 ? '' : 's'}:`];
  let size = 0;
  let next = 0;
  for (; next < names.length && next < MAX_FIELDS_WITH_VALUES && size < ARGUMENT_LINES_CHARS; next++) {
    const name = names[next];
    let value: unknown;
    try {
      value = (args as Record<string, unknown>)[name];
    } catch {
      value = '(a value that cannot be read)';
    }
    const line = `  ${screenQuote(name, NAME_CHARS)}: ${shownValue(value)}`;
    lines.push(line);
    size += line.length;
  }
  const rest = names.length - next;
  if (rest === 0) return lines;
  lines.push(`  … and ${rest} more field${rest === 1 ? '' : 's'}, values not shown; by name:`);
  const quoted: string[] = [];
  let namesSize = 0;
  for (; next < names.length; next++) {
    const name = screenQuote(names[next], NAME_CHARS);
    if (namesSize + name.length > NAMES_ONLY_CHARS) break;
    quoted.push(name);
    namesSize += name.length + 2;
  }
  // Never empty: a name is cut at 100 characters, so the first always fits.
  lines.push(`  ${quoted.join(', ')}`);
  const unnamed = names.length - next;
  if (unnamed > 0) lines.push(`  … and ${unnamed} more field names not shown`);
  return lines;
}

/**
 * The approval question for a side-effecting call, as the lines a person should be shown.
 *
 * The text of the approval question for `action`, line by line, as a person should be shown it:
 * the tool, the step, the door, the intention, the composition path and every argument field.
 * Each line starts with the screen's own label; what a model chose is marked `(chosen by the
 * model)` before it and shown as a quoted one-line string (see {@link screenQuote}), so no value
 * can add a line, look like a field, or hide another field. Every argument field is shown by name
 * on its own line, its value cut on its own; past the bounds, the rest are named or counted.
 *
 * `ApprovalAction.step`, `ApprovalCaller.intention` and the arguments are the values exactly as
 * chosen, for a host to decide with; show a person this text (or values passed through
 * {@link screenQuote}), never those values as they are.
 *
 * @example
 * ```ts
 * const approvals: ApprovalProvider = {
 *   requestApproval: async (action) => ({ approved: await askPerson(approvalText(action)) }),
 * };
 * ```
 *
 * @category The gate
 */
export function approvalText(action: ApprovalAction): string {
  const caller = action.caller;
  // Read defensively: a host may build an action of its own to show.
  const chosen: unknown = caller?.modelChosen;
  const byModel = (what: 'step' | 'intention' | 'args') => (Array.isArray(chosen) && chosen.includes(what) ? ' (chosen by the model)' : '');
  const lines = ['Allow a call that changes something?', `Tool: ${hostName(String(action.toolName))}`, `Step${byModel('step')}: ${screenQuote(String(action.step), STEP_CHARS)}`];
  if (caller) {
    const composite = caller.composite !== undefined ? ` ${screenQuote(String(caller.composite), HOST_NAME_CHARS)}` : '';
    lines.push(`Through: ${hostName(String(caller.door))}${composite}`);
    if (caller.intention !== undefined) lines.push(`Intention${byModel('intention')}: ${screenQuote(String(caller.intention), INTENTION_CHARS)}`);
    if (Array.isArray(caller.path) && caller.path.length) lines.push(`Inside: ${caller.path.map((id) => hostName(String(id))).join(' > ')}`);
  } else {
    lines.push('Through: a direct call from the client');
  }
  lines.push(...argumentLines(action.args, caller ? byModel('args') : ' (as the client sent them)'));
  lines.push(...provenanceLines(action));
  return lines.join('\n');
}

/** The most arguments whose provenance is shown one line each. */
const MAX_PROVENANCE_LINES = 40;
/** The most sources one provenance line names. */
const MAX_SHOWN_SOURCES = 5;

/**
 * Where each argument came from (a gate with `flows`): one line per argument, its name quoted,
 * each source's tool (the host's name) and step (quoted: a model may have chosen it), then
 * `trusted` or `untrusted` last; and what decided that the call is made, when that is not trusted.
 */
function provenanceLines(action: ApprovalAction): string[] {
  const provenance = action.provenance;
  if (typeof provenance !== 'object' || provenance === null) return [];
  const lines: string[] = [];
  if (action.untrusted === true) lines.push('Why you are asked: untrusted data (text a tool returned) steers this call');
  lines.push('Where the arguments came from:');
  const names = Object.keys(provenance);
  for (const name of names.slice(0, MAX_PROVENANCE_LINES)) lines.push(`  ${screenQuote(name, NAME_CHARS)}: ${origin(provenance[name])}`);
  if (names.length > MAX_PROVENANCE_LINES) lines.push(`  … and ${names.length - MAX_PROVENANCE_LINES} more`);
  const control = action.control;
  if (control !== undefined && control.trusted !== true) lines.push(`What decided the call is made: ${origin(control)}`);
  return lines;
}

/** One argument's origin: its sources, then whether it is trusted. */
function origin(provenance: { trusted?: unknown; sources?: unknown; moreSources?: unknown } | undefined): string {
  const trusted = provenance?.trusted === true;
  const sources = Array.isArray(provenance?.sources) ? (provenance.sources as { tool?: unknown; step?: unknown }[]) : [];
  const shown = sources.slice(0, MAX_SHOWN_SOURCES).map((s) => `from ${hostName(String(s.tool))}, step ${screenQuote(String(s.step), STEP_CHARS)}`);
  const more = sources.length - shown.length + (typeof provenance?.moreSources === 'number' ? provenance.moreSources : 0);
  if (more > 0) shown.push(`and ${more} more`);
  const from = shown.length === 0 ? 'the user or the host' : shown.join('; ');
  return `${from}: ${trusted ? 'trusted' : 'untrusted'}`;
}
