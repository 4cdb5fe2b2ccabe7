/**
 * Dotted paths (`.name`, `[0]`, `["odd key"]`): parsed once into segments, walked by a
 * precompiled closure that reads own properties only, so no segment ever reaches a prototype.
 */

/** One step of a dotted path: a property name or an array index. */
export type PathSegment = string | number;

/** A compiled walk from a root value down a fixed path; `undefined` for any missing segment. */
export type PathWalker = (root: unknown) => unknown;

/** The answer of {@link parseDottedPath}: the segments, or why the text is not a dotted path. */
export type DottedParse = { ok: true; segments: PathSegment[] } | { ok: false; problem: string };

/**
 * Characters a bare `.name` segment may not hold: path punctuation, quotes, whitespace, and
 * JSONPath operators (so text using them falls through to JSONPath or is refused).
 */
const NAME_STOP = new Set(['.', '[', ']', "'", '"', '`', '*', '?', '@', '(', ')', ',', ':', '^', '~', '{', '}']);

function isNameChar(ch: string): boolean {
  return !NAME_STOP.has(ch) && !/\s/u.test(ch);
}

/**
 * Parse the text after a root (`.items[0].id`, `["odd key"]`, or empty) into segments.
 * Runs at compile time only.
 */
export function parseDottedPath(text: string): DottedParse {
  const segments: PathSegment[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '.') {
      let j = i + 1;
      while (j < text.length && isNameChar(text[j])) j++;
      if (j === i + 1) return { ok: false, problem: `expected a property name at offset ${i + 1}` };
      segments.push(text.slice(i + 1, j));
      i = j;
    } else if (ch === '[') {
      const close = parseBracket(text, i);
      if (!close.ok) return close;
      segments.push(close.segment);
      i = close.end;
    } else {
      return { ok: false, problem: `unexpected ${JSON.stringify(ch)} at offset ${i}` };
    }
  }
  return { ok: true, segments };
}

/** Parse `[123]`, `["key"]` or `['key']` starting at `start` (the `[`). */
function parseBracket(
  text: string,
  start: number,
): { ok: true; segment: PathSegment; end: number } | { ok: false; problem: string } {
  const digits = /^\[(\d+)\]/u.exec(text.slice(start));
  if (digits) {
    const n = Number(digits[1]);
    if (!Number.isSafeInteger(n)) return { ok: false, problem: `index ${digits[1]} is too large` };
    return { ok: true, segment: n, end: start + digits[0].length };
  }
  const dq = /^\["((?:[^"\\]|\\.)*)"\]/u.exec(text.slice(start));
  if (dq) {
    try {
      // JSON string rules for escapes inside double quotes.
      return { ok: true, segment: JSON.parse(`"${dq[1]}"`) as string, end: start + dq[0].length };
    } catch {
      return { ok: false, problem: `bad escape in ${dq[0]}` };
    }
  }
  const sq = /^\['([^']*)'\]/u.exec(text.slice(start));
  if (sq) return { ok: true, segment: sq[1], end: start + sq[0].length };
  return { ok: false, problem: `expected [index] or ["key"] at offset ${start}` };
}

/**
 * Read an own property, or `undefined`. Own-only is what keeps `constructor`, `__proto__` and
 * `prototype` from reaching a prototype; functions are not walked into (their `prototype` is own).
 */
export function readOwn(value: unknown, key: PathSegment): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  const found = (value as Record<PathSegment, unknown>)[key];
  if (found === undefined) return undefined;
  // One own-property lookup, whatever the prototype: cheaper than asking for the prototype first
  // (a call V8 does not inline where one site reads objects of many shapes, as this one does).
  return hasOwnProperty.call(value, key) ? found : undefined;
}

const hasOwnProperty = Object.prototype.hasOwnProperty;

/**
 * Compile segments into a walker. Short paths get straight-line closures because they are the
 * common case on the hot path. The caller guards against throwing getters.
 */
export function compileWalk(segs: readonly PathSegment[]): PathWalker {
  // Kept, not copied: every caller passes the segments of a parse of its own, which nothing changes.
  switch (segs.length) {
    case 0:
      return (root) => root;
    case 1: {
      const [a] = segs;
      return (root) => readOwn(root, a);
    }
    case 2: {
      const [a, b] = segs;
      return (root) => readOwn(readOwn(root, a), b);
    }
    case 3: {
      const [a, b, c] = segs;
      return (root) => readOwn(readOwn(readOwn(root, a), b), c);
    }
    default:
      return (root) => {
        let cur = root;
        for (let i = 0; i < segs.length; i++) {
          cur = readOwn(cur, segs[i]);
          if (cur === undefined) return undefined;
        }
        return cur;
      };
  }
}
