import { describe, expect, it } from 'vitest';
import { errorPosition, excerpt, findUnclosed } from '../../../src/agent-tools/script/error-position.js';

describe('findUnclosed', () => {
  it('finds the innermost bracket left open, with its line and column', () => {
    expect(findUnclosed('if (a) {\n  f(1,\n')).toEqual({ char: '(', line: 2, column: 4 });
    expect(findUnclosed('const a = [\n  { b: 1 },\n')).toEqual({ char: '[', line: 1, column: 11 });
  });

  it('finds nothing in balanced code, whatever its strings, comments and regular expressions hold', () => {
    for (const code of [
      'const a = "{(["; const b = \'}\';',
      '// {\n/* ( [ */\nreturn 1;',
      'const t = `a ${ {b: "}"}.b } c`;',
      'const r = /[{(]/g; const n = 4 / 2 / 1;',
      'return typeof x === "object" ? /}/.test(x) : (1)',
      'const t = `${`${"("}`}`;',
    ]) {
      expect(findUnclosed(code), code).toBeUndefined();
    }
  });

  it('reports a comment or a template literal left open', () => {
    expect(findUnclosed('const a = 1;\n/* note')).toEqual({ char: '/*', line: 2, column: 1 });
    expect(findUnclosed('const t = `a ${b')).toEqual({ char: '${', line: 1, column: 14 });
  });
});

describe('errorPosition', () => {
  it('keeps a position inside the script as QuickJS gave it', () => {
    expect(errorPosition('a\nb', 2, 1, true)).toEqual({ line: 2, column: 1 });
    expect(errorPosition('a\nb', 1, undefined, false)).toEqual({ line: 1 });
    expect(errorPosition('a', undefined, undefined, true)).toBeUndefined();
  });

  it('turns a syntax error on the wrapper line into the open bracket, or the last line written', () => {
    expect(errorPosition('if (a) {\n', 3, 1, true)).toEqual({ line: 1, column: 8, note: "the '{' here is never closed" });
    expect(errorPosition('x = 1 +\n\n', 4, 1, true)).toEqual({ line: 1, note: 'the script ends in the middle of a statement or expression' });
  });
});

describe('excerpt', () => {
  it('shows the line with a caret under the column, and a long line around the column', () => {
    expect(excerpt('let a = ;', { line: 1, column: 9 })).toBe('\n    let a = ;\n            ^');
    const long = `${'x'.repeat(500)}!`;
    const shown = excerpt(long, { line: 1, column: 501 });
    const [, text, caret] = shown.split('\n');
    expect(text.length).toBeLessThanOrEqual(4 + 160);
    expect(text[caret.indexOf('^')]).toBe('!');
  });
});
