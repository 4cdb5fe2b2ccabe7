/**
 * Quoting words someone else wrote (a script's error, a host's advice, a policy's reason) inside a
 * message of ours, where they may or may not end with a period already.
 */

/** `text` with one period at its end, unless it ends a sentence already (`.`, `!`, `?`). */
export function endSentence(text: string): string {
  return /[.!?]$/u.test(text) ? text : `${text}.`;
}

/** `text` without a final single period, to go on inside a sentence of ours (an ellipsis stays). */
export function withoutPeriod(text: string): string {
  return /(?<!\.)\.$/u.test(text) ? text.slice(0, -1) : text;
}
