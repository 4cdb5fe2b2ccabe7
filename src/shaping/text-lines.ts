/**
 * Counting lines the way a reader does. Tool output usually ends with a newline; counting the
 * empty string after it as a line would make "900 lines" read as 901 and leave a blank page at
 * the end, so the final newline closes the last line instead of opening a new one.
 */

/**
 * Split text into lines: `''` has none, and a trailing `\n` ends the last line rather than
 * starting an empty one (`'a\nb\n'` is `['a', 'b']`; `'\n'` is `['']`).
 */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
