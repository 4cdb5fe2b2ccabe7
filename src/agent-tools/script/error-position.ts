/**
 * Where in the script an error is, said so a model can fix it: the line, the column, and the line
 * itself with a caret under the column.
 *
 * QuickJS reports a syntax error where it noticed it. When the script leaves a `{`, `(` or `[`
 * open, that is past the script's end, on the wrapper's closing line (`})()`), a place the model
 * never wrote; the position then given is the bracket left open, found by a small scanner that
 * knows strings, template literals, comments and regular expressions well enough for the purpose.
 */

/** A position in the script, 1-based, and what to say about it. */
export interface ScriptPosition {
  /** The script's line. */
  line: number;
  /** The column in that line, when known. */
  column?: number;
  /**
   * Set when QuickJS placed a syntax error past the script's end, where its own words are about
   * the wrapper's brackets: what is wrong, in the script's terms.
   */
  note?: string;
}

/** The longest excerpt of a line shown, in characters. */
const MAX_EXCERPT_CHARS = 160;

/**
 * The position to report for an error QuickJS placed at `line` and `column` of the script (the
 * wrapper's lines already taken off). `undefined` when there is nothing to point at.
 */
export function errorPosition(code: string, line: number | undefined, column: number | undefined, syntax: boolean): ScriptPosition | undefined {
  if (line === undefined) return undefined;
  const lines = code.split('\n');
  if (line <= lines.length) return column === undefined ? { line } : { line, column };
  const open = syntax ? findUnclosed(code) : undefined;
  if (open) return { line: open.line, column: open.column, note: `the '${open.char}' here is never closed` };
  let last = lines.length;
  while (last > 1 && lines[last - 1].trim() === '') last--;
  return syntax ? { line: last, note: 'the script ends in the middle of a statement or expression' } : { line: last };
}

/** The script's line at `position`, with a caret under its column, indented for a message. */
export function excerpt(code: string, position: ScriptPosition): string {
  const text = code.split('\n')[position.line - 1] ?? '';
  if (text.trim() === '') return '';
  const column = position.column ?? 0;
  // A long line is shown around the column, so the caret stays under the right character.
  const from = column > MAX_EXCERPT_CHARS ? column - MAX_EXCERPT_CHARS / 2 : 0;
  const shown = text.slice(from, from + MAX_EXCERPT_CHARS);
  const caret = column > 0 ? `\n    ${' '.repeat(Math.max(0, column - 1 - from))}^` : '';
  return `\n    ${shown}${caret}`;
}

/** The closing bracket of each opening one. */
const CLOSERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** Words after which a `/` starts a regular expression rather than a division. */
const BEFORE_EXPRESSION = new Set([
  'return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await',
]);

/** An opening bracket, quote or comment, and where it is. */
interface Opener {
  char: string;
  line: number;
  column: number;
}

/**
 * The innermost bracket, template literal or comment the script opens and never closes, or
 * `undefined` when everything is closed (or a closer does not match, which QuickJS reports itself
 * at the right place). Linear in the script's length.
 */
export function findUnclosed(code: string): Opener | undefined {
  const open: Opener[] = [];
  let line = 1;
  let lineStart = 0;
  let regexAllowed = true;
  let i = 0;
  const at = (index: number, char: string): Opener => ({ char, line, column: index - lineStart + 1 });
  /** Step past a newline at `index`, keeping the line count. */
  const newline = (index: number): void => {
    line++;
    lineStart = index + 1;
  };
  /** Scan template text from `from`: past its closing backtick, or past a `${` (pushed). -1: never closed. */
  const template = (from: number): number => {
    for (let j = from; j < code.length; j++) {
      const c = code[j];
      if (c === '\\') j++;
      else if (c === '\n') newline(j);
      else if (c === '`') {
        open.pop();
        return j + 1;
      } else if (c === '$' && code[j + 1] === '{') {
        open.push(at(j, '${'));
        return j + 2;
      }
    }
    return -1;
  };

  while (i < code.length) {
    const c = code[i];
    if (c === '\n') {
      newline(i);
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '/' && code[i + 1] === '/') {
      const end = code.indexOf('\n', i);
      i = end < 0 ? code.length : end;
    } else if (c === '/' && code[i + 1] === '*') {
      const start = at(i, '/*');
      const end = code.indexOf('*/', i + 2);
      if (end < 0) return start;
      for (let j = i; j < end; j++) if (code[j] === '\n') newline(j);
      i = end + 2;
    } else if (c === '"' || c === "'") {
      const start = at(i, c);
      let j = i + 1;
      while (j < code.length && code[j] !== c && code[j] !== '\n') j += code[j] === '\\' ? 2 : 1;
      if (j >= code.length || code[j] === '\n') return start;
      i = j + 1;
      regexAllowed = false;
    } else if (c === '`') {
      open.push(at(i, '`'));
      i = template(i + 1);
      if (i < 0) return open.at(-1);
      regexAllowed = false;
    } else if (c in CLOSERS) {
      open.push(at(i, c));
      i++;
      regexAllowed = true;
    } else if (c === ')' || c === ']' || c === '}') {
      const top = open.pop();
      if (!top) return undefined;
      if (top.char === '${' && c === '}') {
        i = template(i + 1);
        if (i < 0) return open.at(-1);
        regexAllowed = false;
        continue;
      }
      if (CLOSERS[top.char] !== c) return top;
      i++;
      regexAllowed = c === '}';
    } else if (c === '/' && regexAllowed) {
      let j = i + 1;
      let inClass = false;
      while (j < code.length && code[j] !== '\n' && (inClass || code[j] !== '/')) {
        if (code[j] === '\\') j++;
        else if (code[j] === '[') inClass = true;
        else if (code[j] === ']') inClass = false;
        j++;
      }
      // A regular expression never spans lines: at a newline, the `/` was something else.
      i = code[j] === '/' ? j + 1 : j;
      regexAllowed = false;
    } else if (/[\w$]/.test(c)) {
      let j = i + 1;
      while (j < code.length && /[\w$]/.test(code[j])) j++;
      regexAllowed = BEFORE_EXPRESSION.has(code.slice(i, j));
      i = j;
    } else {
      i++;
      regexAllowed = true;
    }
  }
  return open.at(-1);
}
