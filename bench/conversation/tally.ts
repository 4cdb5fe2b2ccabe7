/** The cost of a conversation: turns, tool calls, and tokens and bytes in and out. */

/** What one conversation (or a sum of them) cost. */
export interface Tally {
  /** Model calls made: one per turn, the final answer's included. */
  turns: number;
  /** Tool calls the model made. */
  toolCalls: number;
  /** Tokens of every request sent (the re-sent context, summed over turns). */
  inputTokens: number;
  /** Tokens the model wrote: its tool calls and its final answer. */
  outputTokens: number;
  /** The same as `inputTokens`, in UTF-8 bytes. */
  inputBytes: number;
  /** The same as `outputTokens`, in UTF-8 bytes. */
  outputBytes: number;
}

/** A tally of nothing. */
export function emptyTally(): Tally {
  return { turns: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, inputBytes: 0, outputBytes: 0 };
}

/** The sum of tallies. */
export function sumTallies(tallies: readonly Tally[]): Tally {
  const sum = emptyTally();
  for (const t of tallies) {
    sum.turns += t.turns;
    sum.toolCalls += t.toolCalls;
    sum.inputTokens += t.inputTokens;
    sum.outputTokens += t.outputTokens;
    sum.inputBytes += t.inputBytes;
    sum.outputBytes += t.outputBytes;
  }
  return sum;
}

/** Input plus output tokens. */
export function totalTokens(t: Tally): number {
  return t.inputTokens + t.outputTokens;
}

/** Input plus output bytes. */
export function totalBytes(t: Tally): number {
  return t.inputBytes + t.outputBytes;
}

/** How much smaller `candidate` is than `baseline`, in percent (negative: larger). */
export function reductionPercent(baseline: number, candidate: number): number {
  return baseline === 0 ? 0 : ((baseline - candidate) / baseline) * 100;
}
