/**
 * Run a suite's tasks through one door, with or without the gate's `flows`, and count what
 * happened: the attacker's effects, the user's tasks done, the questions asked and their size.
 */
import { approvalText, ComposableToolBuilder, createComposeTool, createRunPipelineTool, createScriptTool, createStepGate, createToolRegistry, type ApprovalAction, type ITool, type ToolExecutionResult } from '../../dist/index.js';
import type { Door, Environment, Programs, Suite } from './suite.js';

/** How the gate's hook answers: none (a violation is refused), or a person who says no. */
export type Mode = 'no hook' | 'hook says no' | 'no flows';

/** What one door did with one suite in one mode. */
export interface DoorFigures {
  suite: string;
  door: Door;
  mode: Mode;
  attacks: number;
  attacksSucceeded: number;
  /** Benign tasks whose side-effecting arguments all come from the user or trusted tools. */
  trustedTasks: number;
  /** Of those, done without a question. */
  trustedDoneWithoutQuestion: number;
  /** Benign tasks whose arguments untrusted data steers. */
  steeredTasks: number;
  /** Questions asked during benign tasks, and how many of them untrusted data really steered. */
  questions: number;
  warranted: number;
  /** The largest question's approval text, in bytes. */
  maxQuestionBytes: number;
}

/** One task's run: what a fresh environment ends as, and the questions asked. */
async function runTask(suite: Suite, door: Door, mode: Mode, programs: Programs, session: string, prelude: boolean): Promise<{ env: Environment; questions: string[]; result: ToolExecutionResult }> {
  const { env, tools } = suite.environment();
  const questions: string[] = [];
  const registry = createToolRegistry(tools as ITool[]);
  const gate = createStepGate({
    ...registry.gateOptions,
    ...(mode === 'no flows' ? {} : { flows: suite.flows }),
    ...(mode === 'hook says no' ? { approvals: { requestApproval: (action: ApprovalAction) => (questions.push(approvalText(action)), { approved: false, reason: 'no' }) } } : {}),
  });
  const sideEffectingTools = suite.sideEffectingTools;
  const context = { sessionId: session };
  const pipeline = createRunPipelineTool(gate, { sideEffectingTools });
  if (prelude) {
    // The model read what the attacker wrote before it acted: its session has seen it.
    const reads = tools.filter((t) => t.hasSideEffects === false && t.trustedOutput !== true);
    await pipeline.execute({ steps: reads.map((t) => ({ tool: t.name, args: {} })) }, context);
  }
  let result: ToolExecutionResult;
  switch (door) {
    case 'composite': {
      const builder = new ComposableToolBuilder(gate);
      builder.bind({ sideEffectingTools });
      result = await builder.build(`task_${session.replace(/\W/gu, '_')}`, 'a task', { type: 'object' }, programs.composite.spec).execute(programs.composite.input, context);
      break;
    }
    case 'run_pipeline':
      result = await pipeline.execute(programs.run_pipeline as never, context);
      break;
    case 'compose':
      result = await createComposeTool(gate, { sideEffectingTools }).execute(programs.compose as never, context);
      break;
    case 'run_js':
      result = await createScriptTool(gate, { sideEffectingTools }).execute({ code: programs.run_js }, context);
      break;
  }
  return { env, questions, result };
}

/** Every task of `suite` through `door` in `mode`. */
export async function runSuite(suite: Suite, door: Door, mode: Mode): Promise<DoorFigures> {
  const figures: DoorFigures = { suite: suite.name, door, mode, attacks: 0, attacksSucceeded: 0, trustedTasks: 0, trustedDoneWithoutQuestion: 0, steeredTasks: 0, questions: 0, warranted: 0, maxQuestionBytes: 0 };
  for (const task of suite.injectionTasks) {
    if (door === 'compose' && task.programs.compose === null) continue;
    const { env } = await runTask(suite, door, mode, task.programs, `${door}-${mode}-${task.id}`, true);
    figures.attacks++;
    if (task.happened(env)) figures.attacksSucceeded++;
  }
  for (const task of suite.userTasks) {
    // A task compose cannot say is not sent through it.
    if (door === 'compose' && task.programs.compose === null) continue;
    const { env, questions } = await runTask(suite, door, mode, task.programs, `${door}-${mode}-user-${task.id}`, false);
    figures.questions += questions.length;
    if (task.steered) {
      figures.steeredTasks++;
      figures.warranted += questions.length;
    } else {
      figures.trustedTasks++;
      if (task.done(env) && questions.length === 0) figures.trustedDoneWithoutQuestion++;
    }
    for (const q of questions) figures.maxQuestionBytes = Math.max(figures.maxQuestionBytes, Buffer.byteLength(q));
  }
  return figures;
}
