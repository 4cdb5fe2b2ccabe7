/**
 * "Did you mean ...?": the registered names closest to a name that resolved to nothing, so a typo
 * in a spec or a model's call names its fix.
 */

/** The most suggestions offered. */
const MAX_SUGGESTIONS = 3;

/**
 * The names in `known` closest to `name` (by edit distance, a swap of two neighbours counting as
 * one edit), closest first; none further than a third of the name's length (at least 2 edits).
 */
export function closestNames(name: string, known: Iterable<string>): string[] {
  const limit = Math.max(2, Math.floor(name.length / 3));
  const scored: { name: string; distance: number }[] = [];
  for (const candidate of known) {
    if (candidate === name || Math.abs(candidate.length - name.length) > limit) continue;
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase(), limit);
    if (distance <= limit) scored.push({ name: candidate, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name));
  return scored.slice(0, MAX_SUGGESTIONS).map((s) => s.name);
}

/** `; did you mean a, b?`, or `''` when nothing is close. */
export function didYouMean(name: string, known: Iterable<string> | undefined): string {
  if (!known) return '';
  const close = closestNames(name, known);
  return close.length ? `; did you mean ${close.join(', ')}?` : '';
}

/**
 * The optimal-string-alignment distance between `a` and `b`, stopping early once it must exceed
 * `limit` (names are short, and the list may be long).
 */
function editDistance(a: string, b: string, limit: number): number {
  const n = a.length;
  const m = b.length;
  let before: number[] = [];
  let previous = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      // A swap of two neighbours. On the first row or column one read falls before the start of
      // its string, and `undefined` equals no character, so no bounds check is needed.
      if (a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      current.push(d);
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[m];
}
