/**
 * Where a script decides by its data which calls it makes: a condition whose branch calls a tool,
 * returns, breaks or continues (`if`, `else`, `switch`, a loop's `while`, a `catch`), a call on the
 * far side of `? :`, `&&`, `||` or `??`, or a list filtered or searched (`.filter(`, `.find(`, ...).
 * One run shows the calls its data led to, not the ones other data would: a composite forged from
 * such a run would make the same calls whatever its input. A condition whose branch only throws or
 * picks a value is not one: which calls are made does not depend on it.
 *
 * A scan of the text, not a parse: strings, template literals and comments are blanked first, and
 * a construct is found by its keyword or operator. It errs towards finding one.
 */

/** A construct found: what it is and its line (from 1). */
export interface ScriptBranch {
  construct: string;
  line: number;
}

/** Constructs whose body decides which calls follow: flagged when the body calls, returns, breaks or continues. */
const BLOCK_KEYWORDS = new Set(['if', 'else', 'switch', 'while', 'catch']);
/** Methods that pick items of a list by their data. */
const PICKING = /\.\s*(filter|find|findIndex|findLast|findLastIndex|some|every)\s*\(/gu;
/** What makes a body decide the calls: a call, or leaving it early. */
const DECIDES = /\bcallTool\s*\(|\btools\s*\.\s*[A-Za-z_$]|\breturn\b|\bbreak\b|\bcontinue\b/u;

/**
 * The first place `code` decides by its data which calls it makes, or `undefined`.
 *
 * @param code - a run_js script
 */
export function findScriptBranch(code: string): ScriptBranch | undefined {
  const text = blankLiterals(code);
  const lineOf = (at: number) => text.slice(0, at).split('\n').length;
  const found: ScriptBranch[] = [];
  for (const match of text.matchAll(/\b(if|else|switch|while|catch)\b/gu)) {
    if (!BLOCK_KEYWORDS.has(match[1])) continue;
    const body = bodyAfter(text, match.index + match[1].length);
    if (DECIDES.test(body)) found.push({ construct: match[1], line: lineOf(match.index) });
  }
  // `do { ... } while (...)`: its body is before the while, so any do is a loop decided by data.
  for (const match of text.matchAll(/\bdo\s*\{/gu)) found.push({ construct: 'do ... while', line: lineOf(match.index) });
  for (const match of text.matchAll(/\?\?|\|\||&&|\?(?![.?])/gu)) {
    const rest = statementAfter(text, match.index + match[0].length);
    if (/\bcallTool\s*\(|\btools\s*\.\s*[A-Za-z_$]/u.test(rest)) found.push({ construct: match[0] === '?' ? '? :' : match[0], line: lineOf(match.index) });
  }
  for (const match of text.matchAll(PICKING)) found.push({ construct: `.${match[1]}(`, line: lineOf(match.index) });
  found.sort((a, b) => a.line - b.line);
  return found[0];
}

/**
 * The body of the construct whose keyword ends at `at`: after its parenthesized condition (when it
 * has one), the block in braces, or the statement up to its end.
 */
function bodyAfter(text: string, at: number): string {
  let i = skipSpace(text, at);
  if (text[i] === '(') i = skipSpace(text, matching(text, i, '(', ')') + 1);
  if (text[i] === '{') return text.slice(i, matching(text, i, '{', '}') + 1);
  return statementAfter(text, i);
}

/** The rest of the statement from `at`: up to a `;`, a line's end or a closing brace at its own depth. */
function statementAfter(text: string, at: number): string {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) return text.slice(at, i);
      depth--;
    } else if (depth === 0 && (c === ';' || c === '\n')) return text.slice(at, i);
  }
  return text.slice(at);
}

/** The index of the bracket closing the one at `open` (the text's end when none does). */
function matching(text: string, open: number, opener: string, closer: string): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === opener) depth++;
    else if (text[i] === closer && --depth === 0) return i;
  }
  return text.length - 1;
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && /\s/u.test(text[i])) i++;
  return i;
}

/**
 * `code` with the insides of strings, template literals and comments blanked (line breaks kept,
 * so lines still count), so a keyword in a string is not taken for one in the code. A template's
 * `${...}` is blanked too: a call made inside one is rare, and its condition would be in the code.
 */
function blankLiterals(code: string): string {
  const out: string[] = [];
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let j = from; j < to; j++) out.push(code[j] === '\n' ? '\n' : ' ');
  };
  while (i < code.length) {
    const c = code[i];
    const next = code[i + 1];
    if (c === '/' && next === '/') {
      const end = code.indexOf('\n', i);
      const to = end < 0 ? code.length : end;
      blank(i, to);
      i = to;
    } else if (c === '/' && next === '*') {
      const end = code.indexOf('*/', i + 2);
      const to = end < 0 ? code.length : end + 2;
      blank(i, to);
      i = to;
    } else if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < code.length && code[j] !== c) j += code[j] === '\\' ? 2 : 1;
      const to = Math.min(code.length, j + 1);
      out.push(c);
      blank(i + 1, to - 1);
      if (to - 1 > i) out.push(c);
      i = to;
    } else {
      out.push(c);
      i++;
    }
  }
  return out.join('');
}
