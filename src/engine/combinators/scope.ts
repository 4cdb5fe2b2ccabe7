/**
 * scope: run the inner node; on failure undo everything done inside, in reverse order: each
 * step's compensating call, then the host's snapshot restore. The failure says what was rolled
 * back and whether every undo succeeded; a failing undo is reported, never swallowed.
 */
import { messageOf } from '../../gate/message-of.js';
import type { NodePlan, UndoAction } from '../run-state.js';

/**
 * One undo in a rollback report.
 *
 * @category Build composites
 */
export interface RollbackEntry {
  /** The step undone (for a snapshot restore: the scope). */
  step: string;
  /** The compensating tool, or `snapshot` for the host's restore. */
  undo: string;
  /** Whether the undo succeeded. */
  ok: boolean;
  /** Why it failed. */
  error?: string;
  /** Its failure code. */
  code?: string;
}

/** Compile a scope. With `rollback` false it only runs the inner node. */
export function scope(label: string, inner: NodePlan, rollback: boolean): NodePlan {
  if (!rollback) return inner;
  return async (state, refs) => {
    const log: UndoAction[] = [];
    const snapshots = state.dry ? undefined : state.snapshots;
    let token: unknown;
    if (snapshots) {
      try {
        token = await snapshots.snapshot();
      } catch (error) {
        return {
          ok: false,
          failure: {
            success: false,
            error: `scope "${label}": the snapshot failed before anything ran: ${messageOf(error)}`,
            details: { code: 'step_threw', step: label },
          },
        };
      }
    }
    const outcome = await inner({ ...state, undo: log }, refs);
    if (outcome.ok) {
      // An enclosing rolling-back scope must be able to undo this one's steps too.
      state.undo?.push(...log);
      return outcome;
    }
    const rolledBack: RollbackEntry[] = [];
    for (let i = log.length - 1; i >= 0; i--) {
      const action = log[i];
      let entry: RollbackEntry;
      try {
        const result = await action.run();
        entry = { step: action.step, undo: action.tool ?? 'snapshot', ok: result.success };
        if (!result.success) {
          entry.error = result.error;
          entry.code = result.details?.code;
        }
      } catch (error) {
        entry = { step: action.step, undo: action.tool ?? 'snapshot', ok: false, error: messageOf(error), code: 'step_threw' };
      }
      rolledBack.push(entry);
    }
    if (snapshots) {
      try {
        await snapshots.restore(token);
        rolledBack.push({ step: label, undo: 'snapshot', ok: true });
      } catch (error) {
        rolledBack.push({ step: label, undo: 'snapshot', ok: false, error: messageOf(error), code: 'step_threw' });
      }
    }
    const complete = rolledBack.every((e) => e.ok);
    return {
      ok: false,
      failure: {
        ...outcome.failure,
        error: `${outcome.failure.error ?? 'failed'} (rolled back ${rolledBack.length} undo${rolledBack.length === 1 ? '' : 's'}${complete ? '' : ', NOT all succeeded'})`,
        details: { ...outcome.failure.details, rollback: { scope: label, rolledBack, complete } },
      },
    };
  };
}
