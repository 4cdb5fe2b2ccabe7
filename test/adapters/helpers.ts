/**
 * One host's toolweave setup, the same for every adapter's tests: two pure tools, one with side
 * effects, a composite built from them, and the model-facing tools over one gate.
 */
import {
  ComposableToolBuilder,
  createComposeTool,
  createGetObservationTool,
  createObservationStore,
  createRunPipelineTool,
  createScriptTool,
  createStepGate,
  type ITool,
  type ToolExecutionContext,
} from '../../src/index.js';

/** A host tool that records the contexts it was called with. */
function hostTool(name: string, description: string, inputSchema: ITool['inputSchema'], hasSideEffects: boolean, run: (args: Record<string, unknown>, context: ToolExecutionContext) => Promise<unknown> | unknown) {
  const contexts: ToolExecutionContext[] = [];
  const tool: ITool & { contexts: ToolExecutionContext[] } = {
    id: name, name, displayName: name, description, inputSchema, hasSideEffects, contexts,
    async execute(args, context) {
      contexts.push(context);
      return { success: true, output: await run(args, context) };
    },
  };
  return tool;
}

/** The host's tools, the gate over them, and every model-facing tool. */
export function hostSetup() {
  const notes: string[] = [];
  const lookup = hostTool('lookup', 'Find a user by id.', { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] }, false, (args) => ({ name: `user-${args.id}` }));
  const greet = hostTool('greet', 'Write a greeting.', { type: 'object', properties: { name: { type: 'string' }, punctuation: { type: 'string' } }, required: ['name'] }, false, (args) => `Hello, ${args.name}${args.punctuation ?? '!'}`);
  const writeNote = hostTool('write_note', 'Store a note.', { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, true, (args) => {
    notes.push(String(args.text));
    return `stored note ${notes.length}`;
  });
  // Waits until the call's signal fires: shows that a framework's abort reaches the gate.
  const waitForAbort = hostTool('wait_for_abort', 'Wait until the call is aborted.', { type: 'object', properties: {} , additionalProperties: false }, false, (_args, context) =>
    new Promise((resolve) => {
      if (context.signal?.aborted) resolve('aborted before it started');
      context.signal?.addEventListener('abort', () => resolve('saw the abort'), { once: true });
    }));
  const registry = new Map<string, ITool>([lookup, greet, writeNote, waitForAbort].map((t) => [t.name, t]));
  const gate = createStepGate({ resolve: (name) => registry.get(name), names: () => registry.keys() });
  const builder = new ComposableToolBuilder(gate);
  builder.bind({ sideEffectingTools: ['write_note'] });
  const greetUser = builder.build('greet_user', 'Look a user up and greet them.',
    { type: 'object', properties: { id: { type: 'number' }, punctuation: { type: 'string' } }, required: ['id'] },
    { steps: [
      { name: 'user', tool: 'lookup', inputMapping: { id: '$input.id' } },
      { tool: 'greet', inputMapping: { name: '$steps.user.name', punctuation: '$input.punctuation' } },
    ] });
  const noteUser = builder.build('note_user', 'Look a user up and store a note about them.',
    { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
    { steps: [
      { name: 'user', tool: 'lookup', inputMapping: { id: '$input.id' } },
      { tool: 'write_note', inputMapping: { text: '$steps.user.name' } },
    ] });
  const waitThenGreet = builder.build('wait_then_greet', 'Wait for an abort, then greet.',
    { type: 'object', properties: {}, additionalProperties: false },
    { steps: [{ tool: 'wait_for_abort', inputMapping: {} }, { tool: 'greet', args: { name: 'nobody' } }] });
  const store = createObservationStore();
  const runPipeline = createRunPipelineTool(gate);
  const compose = createComposeTool(gate);
  const runJs = createScriptTool(gate);
  const getObservation = createGetObservationTool(store);
  for (const tool of [greetUser, noteUser, waitThenGreet, runPipeline, compose, runJs, getObservation]) registry.set(tool.name, tool);
  return { registry, gate, builder, notes, lookup, greet, writeNote, waitForAbort, greetUser, noteUser, waitThenGreet, runPipeline, compose, runJs, getObservation };
}

/** Every model-facing tool toolweave ships, and a built composite. */
export function modelFacingTools(setup = hostSetup()): ITool[] {
  return [setup.runPipeline, setup.compose, setup.runJs, setup.getObservation, setup.greetUser];
}
