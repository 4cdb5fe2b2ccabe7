/**
 * The grouped path-list grammar: how a grouped text is written and read back.
 *
 * A grouped text is {@link GROUPED_MARKER} on its first line, then body lines. Each body line is
 * read by the first rule that matches:
 *
 * 1. It starts with a space and follows a block header or entry: a block entry; the original
 *    line is the header followed by the entry without its leading space.
 * 2. The next line starts with a space: a block header. It stands for no line of its own.
 * 3. It starts with `\`: an escaped literal, `\` followed by the line as a JSON string.
 * 4. Its first `": "` comes right after a `/` (`src/app/: chat/a.ts, x.ts`): an inline group;
 *    the original lines are the prefix before `": "` followed by each `", "`-separated entry.
 * 5. Anything else: the original line, as is.
 *
 * The writer keeps every case unambiguous: inline entries never contain `", "` or `": "`,
 * prefixes never start with a space or `\`, and a literal that rule 1, 3 or 4 would misread
 * (or that holds a newline) is escaped. Escapes are rare in real path lists, and a grouped text
 * ships only when it is smaller than the flat list, so they cost nothing in the common case.
 */

/**
 * The first line of every grouped text.
 *
 * It tells the reader (and the model) how to read the
 * rest, and tells `expandPathList` the text is grouped rather than flat.
 *
 * @category Observations
 */
export const GROUPED_MARKER = '[grouped: "d/: a, b" = d/a, d/b]';

/** The separator between an inline group's prefix and its entries. */
const PREFIX_SEPARATOR = ': ';
/** The separator between an inline group's entries. */
const ENTRY_SEPARATOR = ', ';
/** Block entries are indented by this, so they read as belonging to the header above. */
const BLOCK_INDENT = ' ';
/** Escaped literals start with this. */
const ESCAPE = '\\';

/** One or more body lines that together stand for `covers` consecutive original lines. */
export interface GroupedUnit {
  /** The body lines as written. */
  lines: string[];
  /** How many original lines they stand for. */
  covers: number;
}

/** Whether a body line would be read as an inline group (rule 4). */
function readsAsInlineGroup(line: string): boolean {
  const at = line.indexOf(PREFIX_SEPARATOR);
  return at > 0 && line[at - 1] === '/';
}

/** Whether an original line must be escaped to survive as a literal body line. */
export function literalNeedsEscape(line: string): boolean {
  return (
    line.startsWith(BLOCK_INDENT) ||
    line.startsWith(ESCAPE) ||
    line.includes('\n') ||
    readsAsInlineGroup(line)
  );
}

/** The body line that stands for one original line on its own. */
export function writeLiteral(line: string): string {
  return literalNeedsEscape(line) ? ESCAPE + JSON.stringify(line) : line;
}

/**
 * Whether a prefix can head a group: non-empty, no newline, and not starting with a character
 * that rules 1 or 3 claim.
 */
export function isUsablePrefix(prefix: string): boolean {
  return (
    prefix !== '' &&
    !prefix.includes('\n') &&
    !prefix.startsWith(BLOCK_INDENT) &&
    !prefix.startsWith(ESCAPE)
  );
}

/**
 * Whether a group can be written inline (rule 4): a directory prefix without `": "`, and entries
 * that the `", "` split gives back exactly.
 */
export function canWriteInline(prefix: string, entries: readonly string[]): boolean {
  return (
    isUsablePrefix(prefix) &&
    prefix.endsWith('/') &&
    !prefix.includes(PREFIX_SEPARATOR) &&
    entries.every(
      (entry) => entry !== '' && !entry.includes(ENTRY_SEPARATOR) && !entry.includes(PREFIX_SEPARATOR),
    )
  );
}

/**
 * A grouped body before it is written: one original line on its own, or a prefix with the
 * entries that follow it in consecutive original lines.
 */
export type GroupedPart =
  | { form: 'literal'; line: string }
  | { form: 'inline' | 'block'; prefix: string; entries: string[] };

/** The body lines of one part, as shipped: an inline group on one line, however long. */
export function writePart(part: GroupedPart): string[] {
  if (part.form === 'literal') return [writeLiteral(part.line)];
  if (part.form === 'inline') return [part.prefix + PREFIX_SEPARATOR + part.entries.join(ENTRY_SEPARATOR)];
  return [part.prefix, ...part.entries.map((entry) => BLOCK_INDENT + entry)];
}

/**
 * The body lines of one part as units a preview can stop between: an inline group wrapped into
 * lines of at most `maxLineLength` characters (each repeating the prefix, so each reads on its
 * own), a block group one entry at a time (the first with its header).
 */
export function writePartUnits(part: GroupedPart, maxLineLength: number): GroupedUnit[] {
  if (part.form === 'literal') return [{ lines: [writeLiteral(part.line)], covers: 1 }];
  if (part.form === 'block') {
    return part.entries.map((entry, index) => ({
      lines: index === 0 ? [part.prefix, BLOCK_INDENT + entry] : [BLOCK_INDENT + entry],
      covers: 1,
    }));
  }
  const units: GroupedUnit[] = [];
  let line = '';
  let covers = 0;
  for (const entry of part.entries) {
    if (covers > 0 && line.length + ENTRY_SEPARATOR.length + entry.length > maxLineLength) {
      units.push({ lines: [line], covers });
      covers = 0;
    }
    line = covers === 0 ? part.prefix + PREFIX_SEPARATOR + entry : line + ENTRY_SEPARATOR + entry;
    covers++;
  }
  units.push({ lines: [line], covers });
  return units;
}

/** Read an escaped literal; a malformed one is taken as written, so reading never throws. */
function readEscaped(line: string): string {
  try {
    const value: unknown = JSON.parse(line.slice(ESCAPE.length));
    return typeof value === 'string' ? value : line;
  } catch {
    return line;
  }
}

/** Read the body lines of a grouped text (everything after the marker) back into the original lines. */
export function readGroupedBody(body: readonly string[]): string[] {
  const lines: string[] = [];
  let header: string | undefined;
  for (let index = 0; index < body.length; index++) {
    const line = body[index];
    if (line.startsWith(BLOCK_INDENT) && header !== undefined) {
      lines.push(header + line.slice(BLOCK_INDENT.length));
      continue;
    }
    header = undefined;
    const next = body[index + 1];
    if (!line.startsWith(BLOCK_INDENT) && next !== undefined && next.startsWith(BLOCK_INDENT)) {
      header = line;
    } else if (line.startsWith(ESCAPE)) {
      lines.push(readEscaped(line));
    } else if (readsAsInlineGroup(line)) {
      const at = line.indexOf(PREFIX_SEPARATOR);
      const prefix = line.slice(0, at);
      for (const entry of line.slice(at + PREFIX_SEPARATOR.length).split(ENTRY_SEPARATOR)) {
        lines.push(prefix + entry);
      }
    } else {
      lines.push(line);
    }
  }
  return lines;
}
