/**
 * Arguments as canonical JSON (object keys sorted), so a replayed call can be matched with the
 * call the journal recorded at its place, whatever order its keys were written in.
 */

/** What a value that cannot be written as JSON (a cycle, a BigInt) reads as: it never matches a replayed call. */
const UNWRITABLE = '\u0000unwritable';

/** `value` as JSON with every object's keys sorted; a value that cannot be written gives a key no call matches. */
export function canonicalJson(value: unknown): string {
  try {
    return JSON.stringify(value, sortKeys) ?? 'undefined';
  } catch {
    return UNWRITABLE;
  }
}

function sortKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = (value as Record<string, unknown>)[key];
  return sorted;
}
