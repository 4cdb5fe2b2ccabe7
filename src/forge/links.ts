/**
 * What links two calls of a session into one chain besides a copied output: a value shared by
 * calls of different tools (`get_file_info(F)` then `read_text_file(F)`), unless the person gives
 * that value in several sessions (a habit, not data passed on).
 */
import { matchKey, type ArgumentPart, type CallFlow } from './flow.js';
import type { CallRecord } from './record-format.js';

/** A session's successful calls (a run's own record left out) and the flow into each. */
export interface TracedSession {
  /** The session's file. */
  file: string;
  /** Its calls that are part of no run's own record and ended well. */
  calls: CallRecord[];
  /** The flow into each of them. */
  flows: CallFlow[];
}

/**
 * Whether a part given the value an earlier call was given is a link by that value: the two calls
 * are of different tools (`get_file_info(F)` then `read_text_file(F)`). The same tool given the
 * same value again (a status, a recipient) is a repeat of a habit, not data passed on.
 */
export function sharedValue(part: ArgumentPart, call: number, calls: readonly CallRecord[]): boolean {
  return part.from?.kind === 'arg' && calls[part.from.call].tool !== calls[call].tool;
}

/**
 * The values shared (see {@link sharedValue}) in more than one session: a limit, a subject, a
 * folder the person always uses. Such a value is a habit, not a link: linking by it would join
 * every task of a session that uses it into one chain.
 */
export function givenInSeveralSessions(sessions: readonly TracedSession[]): Set<string> {
  const firstSeenIn = new Map<string, number>();
  const several = new Set<string>();
  sessions.forEach((session, s) => {
    for (const flow of session.flows) {
      for (const part of flow.parts) {
        // A shared part's value is one a link may be made by, so it has a key.
        const key = sharedValue(part, flow.call, session.calls) ? matchKey(part.value) : undefined;
        if (key === undefined) continue;
        const first = firstSeenIn.get(key);
        if (first === undefined) firstSeenIn.set(key, s);
        else if (first !== s) several.add(key);
      }
    }
  });
  return several;
}
