/**
 * What can be told of a JSON-RPC message that cannot be read whole (cut short, or too long to
 * hold) from its two ends: whether it is an answer, and its id. Servers write the id first
 * (`{"jsonrpc":"2.0","id":7,"result":...}`, as the Python SDK does) or last
 * (`{"result":...,"jsonrpc":"2.0","id":7}`, as the TypeScript SDK does), so both ends are read.
 */

/** What the ends of a message tell. */
export interface MessagePeek {
  /** `answer`: it has a top-level `result` or `error`; `other`: a request, a notification, or not a JSON object at all; `unknown`: cannot be told. */
  kind: 'answer' | 'other' | 'unknown';
  /** Its id, when one could be read. */
  id?: string | number;
}

/**
 * Peek at a message from its first and last characters (a few hundred of each is enough). The
 * head is read key by key at the top level until a nested value or its end; the tail gives the id
 * only when it closes the top-level object (`,"id":7}` at the very end).
 */
export function peekMessage(head: string, tail: string): MessagePeek {
  const keys = topLevelKeys(head);
  if (keys === undefined) return { kind: 'other' };
  const kind = keys.has('method') ? 'other' : keys.has('result') || keys.has('error') ? 'answer' : 'unknown';
  const id = idValue(keys.get('id')) ?? idAtEnd(tail);
  return id === undefined ? { kind } : { kind, id };
}

/** What a parsed JSON value (that is not a valid JSON-RPC message) tells. */
export function peekValue(value: unknown): MessagePeek {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'other' };
  const object = value as Record<string, unknown>;
  const kind = 'method' in object ? 'other' : 'result' in object || 'error' in object ? 'answer' : 'unknown';
  const id = idValue(object.id);
  return id === undefined ? { kind } : { kind, id };
}

function idValue(value: unknown): string | number | undefined {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : undefined;
}

/** `"id": <number or string>` then the closing brace of the top-level object, at the very end. */
const ID_AT_END = /(?<!\\)"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/u;

function idAtEnd(tail: string): string | number | undefined {
  const found = ID_AT_END.exec(tail);
  if (!found) return undefined;
  try {
    return idValue(JSON.parse(found[1]!));
  } catch {
    return undefined;
  }
}

/**
 * The top-level keys of the object `text` starts, with their values where those are strings,
 * numbers, booleans or null; a key whose value is an object or an array is kept (as `undefined`)
 * and ends the reading, as does the end of the text. `undefined` when the text does not start an
 * object.
 */
function topLevelKeys(text: string): Map<string, unknown> | undefined {
  const keys = new Map<string, unknown>();
  let at = skipSpace(text, 0);
  if (text[at] !== '{') return undefined;
  at++;
  // Each turn reads one key and its value; the text is finite and every turn moves forward.
  while (at < text.length) {
    at = skipSpace(text, at);
    const key = readString(text, at);
    if (!key) return keys;
    at = skipSpace(text, key.end);
    if (text[at] !== ':') return keys;
    at = skipSpace(text, at + 1);
    const first = text[at];
    if (first === '{' || first === '[') {
      keys.set(key.value, undefined);
      return keys;
    }
    const value = first === '"' ? readString(text, at) : readWord(text, at);
    if (!value) return keys;
    keys.set(key.value, value.value);
    at = skipSpace(text, value.end);
    if (text[at] !== ',') return keys;
    at++;
  }
  return keys;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/u.test(text[at]!)) at++;
  return at;
}

/** A JSON string starting at `at`, whole; `undefined` when it is cut off or not a string. */
function readString(text: string, at: number): { value: string; end: number } | undefined {
  if (text[at] !== '"') return undefined;
  for (let end = at + 1; end < text.length; end++) {
    if (text[end] === '\\') end++;
    else if (text[end] === '"') {
      try {
        return { value: JSON.parse(text.slice(at, end + 1)) as string, end: end + 1 };
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** A number, `true`, `false` or `null` starting at `at`, ended by a delimiter before the text ends. */
function readWord(text: string, at: number): { value: unknown; end: number } | undefined {
  const found = /^[-+.\w]+(?=[\s,}])/u.exec(text.slice(at, at + 64));
  if (!found) return undefined;
  try {
    return { value: JSON.parse(found[0]) as unknown, end: at + found[0].length };
  } catch {
    return undefined;
  }
}
