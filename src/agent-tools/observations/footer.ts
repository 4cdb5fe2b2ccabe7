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

/** Why a body was not stored, as the footer says it. */
const UNSTORED_REASONS = { too_large: 'too large', unavailable: 'store unavailable' } as const;

/**
 * `[not stored, too large: 900 lines, 41 MB; showing 1-40]` when the store declined the body,
 * `[not stored, store unavailable: ...]` when it could not be reached: nothing to page back.
 */
export function unstoredFooter(facts: PreviewFooterFacts, reason: keyof typeof UNSTORED_REASONS): string {
  return `[not stored, ${UNSTORED_REASONS[reason]}: ${countLines(facts.lines)}, ${formatBytes(facts.bytes)}; ${shownPhrase(facts.shown, facts.partial)}]`;
}
