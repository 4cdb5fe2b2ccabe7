/**
 * The one framing line under a preview or a page. Short on purpose: it is read on every call,
 * so it says only what the model needs to fetch the rest.
 */
import { formatBytes } from './format.js';

/** `1 line`, `900 lines`. */
export function countLines(count: number): string {
  return `${count} line${count === 1 ? '' : 's'}`;
}

/** What part of the original a preview shows. */
function shownPhrase(shown: number, partial: boolean): string {
  if (partial) return 'showing part of line 1';
  if (shown === 0) return 'nothing shown';
  return `showing 1-${shown}`;
}

/** What a preview's footer needs to know. */
export interface PreviewFooterFacts {
  /** The lines in the whole output. */
  lines: number;
  /** Its UTF-8 size. */
  bytes: number;
  /** The whole lines the preview shows, from the first. */
  shown: number;
  /** The preview holds only the start of line 1. */
  partial: boolean;
}

/**
 * `[obs_kqz12: 900 lines, 41 KB; showing 1-40; get_observation {"ids":["obs_kqz12"],"offset":40}]`;
 * the call hint only when lines remain.
 */
export function storedFooter(id: string, facts: PreviewFooterFacts): string {
  const size = `${countLines(facts.lines)}, ${formatBytes(facts.bytes)}`;
  const next =
    facts.shown < facts.lines ? `; get_observation {"ids":[${JSON.stringify(id)}],"offset":${facts.shown}}` : '';
  return `[${id}: ${size}; ${shownPhrase(facts.shown, facts.partial)}${next}]`;
}

/** `[not stored, too large: 900 lines, 41 MB; showing 1-40]`: the store declined the body. */
export function unstoredFooter(facts: PreviewFooterFacts): string {
  return `[not stored, too large: ${countLines(facts.lines)}, ${formatBytes(facts.bytes)}; ${shownPhrase(facts.shown, facts.partial)}]`;
}
