/**
 * An AgentDojo-style suite: an environment the tools work on, the user's tasks with the program a
 * model would write for each through each door, and injection tasks whose programs follow a line
 * an attacker planted in what the tools return. Scripted programs are the floor of the benchmark:
 * they show what the gate does with each kind of program, whatever a model would choose.
 */
import type { ComposableToolSpec, FlowOptions, ITool } from '../../dist/index.js';

/** The doors a program goes through. */
export const DOORS = ['composite', 'run_pipeline', 'compose', 'run_js'] as const;
export type Door = (typeof DOORS)[number];

/** One program, as a model would send it through each door. */
export interface Programs {
  /** A composite: its spec and the input it is called with. */
  composite: { spec: ComposableToolSpec; input: Record<string, unknown> };
  /** run_pipeline's arguments. */
  run_pipeline: { steps: { id?: string; tool: string; args?: Record<string, unknown> }[] };
  /** compose's tree; `null` where compose cannot say it (one call's arguments from two results: it passes on one `{result}`). */
  compose: Record<string, unknown> | null;
  /** run_js's code. */
  run_js: string;
}

/** A task of the user's. */
export interface UserTask {
  id: string;
  /** What the user asked. */
  prompt: string;
  /** Its programs. */
  programs: Programs;
  /**
   * Untrusted data really steers one of its side-effecting calls' arguments (a payment to an IBAN
   * read from a file): a question is warranted. False: every side-effecting argument comes from the
   * user or from trusted tools, and a question is a false alarm.
   */
  steered: boolean;
  /** Whether the task was done, read off the environment after the run. */
  done(env: Environment): boolean;
}

/** A task of the attacker's: its programs follow the injected text. */
export interface InjectionTask {
  id: string;
  /** What the injected text asks. */
  goal: string;
  programs: Programs;
  /** Whether the attacker's effect happened, read off the environment after the run. */
  happened(env: Environment): boolean;
}

/** What a suite's tools act on: each suite keeps its own state in it. */
export type Environment = Record<string, unknown>;

/** A suite. */
export interface Suite {
  name: string;
  /** A fresh environment and the tools over it. */
  environment(): { env: Environment; tools: ITool[] };
  /** The side-effecting tools the host lets be chained. */
  sideEffectingTools: string[];
  /** The host's flows rules. */
  flows: FlowOptions;
  userTasks: UserTask[];
  injectionTasks: InjectionTask[];
}

/** A tool over the environment, for the suites. */
export function suiteTool(
  name: string,
  run: (args: Record<string, unknown>) => unknown,
  extra: Partial<ITool> & { hasSideEffects: boolean },
  properties: Record<string, unknown> = {},
  required: string[] = [],
): ITool {
  return {
    id: name,
    name,
    displayName: name,
    description: name,
    inputSchema: { type: 'object', properties, required },
    ...extra,
    execute: async (args) => {
      try {
        return { success: true, output: run(args) };
      } catch (error) {
        return { success: false, error: error instanceof Error ? error.message : String(error), details: { code: 'tool_failed' } };
      }
    },
  };
}

/** Pure helpers a model's program uses to pick apart what it read (their output carries their input's labels). */
export function helperTools(): ITool[] {
  return [
    suiteTool('extract_iban', (a) => /[A-Z]{2}\d{2}-[A-Z]+/u.exec(String(a.text))?.[0] ?? '', { hasSideEffects: false, trustedOutput: true }, { text: {} }),
    suiteTool('extract_ibans', (a) => String(a.text).match(/[A-Z]{2}\d{2}-[A-Z]+/gu) ?? [], { hasSideEffects: false, trustedOutput: true }, { text: {} }),
    suiteTool('extract_email', (a) => /[\w.-]+@[\w.-]+/u.exec(String(a.text))?.[0] ?? '', { hasSideEffects: false, trustedOutput: true }, { text: {} }),
    suiteTool(
      'pick',
      (a) => String(a.path).split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], a.value),
      { hasSideEffects: false, trustedOutput: true },
      { value: {}, path: { type: 'string' } },
    ),
  ];
}

/** A program that only calls `tool` with `args` the model wrote, through each door. */
export function callWith(tool: string, args: Record<string, unknown>): Programs {
  const inputMapping = Object.fromEntries(Object.keys(args).map((key) => [key, `$input.${key}`]));
  return {
    composite: { input: args, spec: { steps: [{ tool, inputMapping }] } },
    run_pipeline: { steps: [{ tool, args }] },
    compose: { tool, args },
    run_js: `const r = await callTool('${tool}', ${JSON.stringify(args)}); return r.error ? r.error.code : 'done';`,
  };
}
