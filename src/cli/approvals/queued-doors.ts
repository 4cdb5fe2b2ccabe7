/**
 * `approvals: queue` in a session: the approval hook answers "later" and the run pauses; the door
 * the client called files the paused run in the proxy's queue and tells the model who must
 * approve, how, what waits, and to call `resume_run` once they have answered; `resume_run`
 * resumes the run with the person's answers, or says it still waits (it never waits itself).
 */
import { failure, isApprovalPending, resumeRun, type ApprovalDecision, type ApprovalPending, type ApprovalProvider, type ITool, type ToolExecutionResult } from '../../index.js';
import type { ApprovalQueue, QueuedRun, QueueRoom } from './queue.js';

/** The name of the tool a model resumes a queued run with. */
export const RESUME_RUN_TOOL_NAME = 'resume_run';

/** Who must approve, when the config does not say. */
export const DEFAULT_APPROVER = 'the person who runs this MCP server (the user at this machine)';

/** The most characters of a call's arguments the model's text shows. */
const SHOWN_ARGS_CHARS = 300;

/** What the model's text says about the queue. */
export interface QueueNotice {
  /** Who must approve. */
  approver: string;
  /** The `toolweave` command as the person runs it: the bin that serves, by its absolute path. */
  command: string;
  /** Told of each run queued (the proxy logs it, for a person who watches its log). */
  onQueued?: (run: QueuedRun) => void;
}

/** Why the queue has no place for a run of this session, as the model reads it. */
function noRoomText(queue: ApprovalQueue, room: QueueRoom): string {
  return room === 'session_full'
    ? `this session's share of the approvals queue is full (${queue.maxRunsPerOwner} of its runs wait)`
    : `the approvals queue is full (${queue.maxRuns} runs wait)`;
}

/**
 * The approval hook of queue mode for session `owner`: every call of a door that can pause waits
 * for the person; a call that cannot wait (a direct call: it has no run to pause) is refused,
 * saying how to make it so that it can wait, and one past the queue's bound, or past the
 * session's share of it, answers `approvals_full`.
 */
export function queueApprovals(queue: ApprovalQueue, owner: string): ApprovalProvider {
  return {
    requestApproval(action): ApprovalDecision | ApprovalPending {
      const tool = `"${action.toolName}"`;
      if (!action.caller) {
        return {
          approved: false,
          reason: `The call to ${tool} needs a person's approval, and approvals here are queued for the person to answer later: a direct call cannot wait for them. Call it through run_pipeline (one step) or run_js, which wait for their answer.`,
        };
      }
      const room = queue.room(owner);
      if (room !== 'free') {
        return { approved: false, queueFull: true, reason: `The call to ${tool} needs a person's approval, and ${noRoomText(queue, room)}; try again once the person has answered some.` };
      }
      return { pending: true };
    },
  };
}

/** A session's doors in queue mode: each files its paused runs, and `resume_run` resumes them. */
export interface QueuedDoors {
  /** `door` as served: a run it pauses is filed in the queue, and the model told how it goes on. */
  served(door: ITool): ITool;
  /** The `resume_run` tool of the session. */
  resumeTool: ITool;
  /** Drop the session's queued runs (it ended). */
  dispose(): void;
}

/**
 * Queue mode for the session `owner`: `doorNamed` finds a door by name as the session has it now
 * (a composite rebuilt when the tools changed is resumed through its new self).
 */
export function queuedDoors(queue: ApprovalQueue, owner: string, doorNamed: (name: string) => ITool | undefined, notice: QueueNotice): QueuedDoors {
  const wrapped = new WeakMap<ITool, ITool>();

  /** A door's paused result filed in the queue and told as the model reads it; any other result as it is. */
  function filed(door: string, result: ToolExecutionResult): ToolExecutionResult {
    if (!isApprovalPending(result)) return result;
    const { resume, pending, expiresAt } = result.details;
    const run = queue.file(owner, door, resume, pending, expiresAt);
    const room = run ? 'free' : queue.room(owner);
    const effects = result.effects ? { effects: result.effects } : {};
    if (!run) {
      return {
        ...failure('approvals_full', `The run needs a person's approval, and ${noRoomText(queue, room)}, so it was not queued and will not go on; try again once the person has answered some.`, {
          reason: room === 'session_full' ? 'session share full' : 'queue full',
        }),
        ...effects,
      };
    }
    notice.onQueued?.(run);
    return { ...failure('approval_pending', waitingText(run, notice), { run: run.id, pending: run.calls.map(({ id, tool, step }) => ({ id, tool, step })) }), ...effects };
  }

  const resumeTool: ITool = {
    id: `toolweave:${RESUME_RUN_TOOL_NAME}`,
    name: RESUME_RUN_TOOL_NAME,
    displayName: 'Resume a run after approval',
    description:
      'Continue a run that waited for a person\'s approval (an approval_pending answer that names a run, such as q3Fx9a). Call it after the person says they have answered: it returns the run\'s result, or says it is still waiting. It does not wait itself.',
    inputSchema: {
      type: 'object',
      properties: { run: { type: 'string', description: 'The run id the approval_pending answer gave.' } },
      required: ['run'],
      additionalProperties: false,
    },
    // It continues runs that change things, as the door that paused them would; it is not itself asked about.
    hasSideEffects: true,
    composition: true,
    async execute(args, context) {
      const id = args?.run;
      const run = queue.runOf(id, owner);
      if (!run) {
        return failure('resume_token_unknown', `No run ${JSON.stringify(typeof id === 'string' ? id.slice(0, 40) : id)} waits for a person in this session: never queued here, already resumed, expired, or from another session. Start the work again.`);
      }
      if (run.resuming) return failure('resume_busy', `Run ${run.id} is being resumed by another call; wait for its result.`);
      const waiting = run.calls.filter((call) => call.decision === undefined);
      if (waiting.length > 0) {
        return failure(
          'approval_pending',
          `Still waiting: ${notice.approver} has not answered ${waiting.length} of the ${run.calls.length} call(s) of run ${run.id} (${waiting.map((call) => `${call.id} "${call.tool}"`).join(', ')}). Tell the user it still waits for them (\`${notice.command} approvals approve ${run.id}\` or \`refuse ${run.id}\`), and call resume_run again once they have answered.`,
          { run: run.id, pending: waiting.map(({ id: callId, tool, step }) => ({ id: callId, tool, step })) },
        );
      }
      const door = doorNamed(run.door);
      if (!door) {
        queue.remove(run.id);
        return failure('resume_token_unknown', `Run ${run.id} came through "${run.door}", which this server no longer serves; start the work again.`);
      }
      run.resuming = true;
      let result: ToolExecutionResult;
      try {
        result = await resumeRun(door, run.token, run.calls.map((call) => call.decision!), context);
      } finally {
        run.resuming = false;
      }
      // A journal out of reach or a busy token leaves the run queued, to be resumed again.
      const code = result.details?.code;
      if (code !== 'journal_unavailable' && code !== 'resume_busy') queue.remove(run.id);
      return filed(run.door, result);
    },
  };

  return {
    served(door) {
      let served = wrapped.get(door);
      if (!served) {
        served = { ...door, execute: async (args, context) => filed(door.name, await door.execute(args, context)) };
        wrapped.set(door, served);
      }
      return served;
    },
    resumeTool,
    dispose: () => queue.dropOwner(owner),
  };
}

/** What the model reads of a queued run: who must approve, what waits, how they answer, what to do next. */
function waitingText(run: QueuedRun, notice: QueueNotice): string {
  const lines = run.calls.map((call) => `- ${call.id}: tool "${call.tool}", step ${JSON.stringify(call.step)}, arguments ${shown(call.args)}`);
  return [
    `The run has paused, not failed: ${notice.approver} must approve ${run.calls.length === 1 ? 'this call' : `these ${run.calls.length} calls`} before it goes on (run ${run.id}):`,
    ...lines,
    `They answer on this machine with \`${notice.command} approvals approve ${run.id}\` or \`${notice.command} approvals refuse ${run.id} --reason "..."\` (\`${notice.command} approvals list\` shows what waits), or through the approvals endpoint the proxy serves on 127.0.0.1.`,
    `Tell the user what waits and how to answer it; do not answer it yourself. Once they have answered, call ${RESUME_RUN_TOOL_NAME} with {"run": "${run.id}"}: it returns the run's result, or says it is still waiting.`,
  ].join('\n');
}

function shown(args: Record<string, unknown>): string {
  let text: string;
  try {
    text = JSON.stringify(args) ?? '{}';
  } catch {
    text = '(not shown: not JSON)';
  }
  return text.length > SHOWN_ARGS_CHARS ? `${text.slice(0, SHOWN_ARGS_CHARS)}... (${text.length} characters in all)` : text;
}
