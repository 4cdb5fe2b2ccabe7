/**
 * Progress for a client that asked for it (a `progressToken`): one `notifications/progress` as each
 * call under a composite, a pipeline or a script ends, "3/7 read_file ok".
 */
import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { ToolEvent } from '../index.js';

/** Sends a notification related to the request being served. */
export type SendNotification = (notification: ServerNotification) => Promise<void>;

/**
 * A listener for `context.onEvent` that reports each nested call's end, or `undefined` when the
 * client sent no progress token. The call itself (a direct call, no door) is not a step of itself.
 *
 * @param total - the number of steps when it is known in advance (a pipeline's), else `undefined`
 */
export function progressListener(send: SendNotification, token: ProgressToken | undefined, total: number | undefined): ((event: ToolEvent) => void) | undefined {
  if (token === undefined) return undefined;
  let ended = 0;
  return (event) => {
    if (event.type !== 'call_ended' || event.door === undefined) return;
    ended++;
    // A retry or an undo can take a pipeline past its step count: then there is no total to show.
    const known = total !== undefined && ended <= total ? total : undefined;
    const verdict = event.ok ? 'ok' : (event.code ?? 'failed');
    const message = `${ended}${known === undefined ? '' : `/${known}`} ${event.tool} ${verdict}`;
    send({ method: 'notifications/progress', params: { progressToken: token, progress: ended, ...(known === undefined ? {} : { total: known }), message } }).catch(() => {
      // The client went away; the run goes on and its answer says how it ended.
    });
  };
}
