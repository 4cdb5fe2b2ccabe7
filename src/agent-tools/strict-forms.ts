/**
 * The strict forms of run_pipeline's and compose's input (see `ITool.strictInputSchema`), and how
 * their arguments are read back into the ordinary form. A strict client (OpenAI's strict mode)
 * wants every object closed and every property required: an optional field is nullable and sent
 * as `null` when left out, and an open object (a step's `args`, the compose tree) is JSON text.
 */
import { messageOf } from '../gate/message-of.js';
import { isRecord } from '../spec/nodes.js';
import type { JSONSchemaObject } from '../tool.js';

/** The strict form of run_pipeline's input: each step's `args` as JSON text, `null` for what is left out. */
export function pipelineStrictSchema(): JSONSchemaObject {
  return {
    type: 'object',
    properties: {
      steps: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: ['string', 'null'] },
            tool: { type: 'string' },
            args: { type: ['string', 'null'], description: 'The arguments as JSON text of an object' },
          },
          required: ['id', 'tool', 'args'],
          additionalProperties: false,
        },
      },
      stop_on_error: { type: ['boolean', 'null'] },
    },
    required: ['steps', 'stop_on_error'],
    additionalProperties: false,
  };
}

/** The strict form of compose's input: the whole tree as JSON text. */
export function composeStrictSchema(): JSONSchemaObject {
  return {
    type: 'object',
    properties: { tree_json: { type: 'string', description: 'The tree (one node, its children inside it) as JSON text of an object' } },
    required: ['tree_json'],
    additionalProperties: false,
  };
}

/** Arguments read back into the ordinary form, or what is wrong with them. */
export type ReadBack = { ok: true; args: Record<string, unknown> } | { ok: false; problem: string };

/**
 * run_pipeline's arguments in the ordinary form: `null` for `stop_on_error`, a step's `id` or
 * its `args` is left out; a step's `args` given as text is parsed (it must be an object). Any
 * other shape is passed on as it is, for the schema check to name what is wrong.
 */
export function readPipelineArgs(args: Record<string, unknown>): ReadBack {
  if (!isRecord(args)) return { ok: true, args };
  const { stop_on_error: stop, steps, ...rest } = args;
  const out: Record<string, unknown> = { ...rest, ...(stop !== null && stop !== undefined ? { stop_on_error: stop } : {}) };
  if (steps !== undefined) out.steps = steps;
  if (!Array.isArray(steps)) return { ok: true, args: out };
  const read: unknown[] = [];
  for (let i = 0; i < steps.length; i++) {
    const step: unknown = steps[i];
    if (!isRecord(step)) {
      read.push(step);
      continue;
    }
    const { id, args: stepArgs, ...fields } = step;
    const given: Record<string, unknown> = { ...fields, ...(id !== null && id !== undefined ? { id } : {}) };
    if (typeof stepArgs === 'string') {
      const parsed = parseObject(stepArgs);
      if (!parsed.ok) return { ok: false, problem: `input.steps.${i}.args: ${parsed.problem}` };
      given.args = parsed.value;
    } else if (stepArgs !== null && stepArgs !== undefined) {
      given.args = stepArgs;
    }
    read.push(given);
  }
  out.steps = read;
  return { ok: true, args: out };
}

/**
 * compose's arguments in the ordinary form: `{ tree_json }` alone is the tree it holds (it must be
 * JSON text of an object); any other arguments are the tree itself.
 */
export function readComposeArgs(args: Record<string, unknown>): ReadBack {
  if (!isRecord(args) || !('tree_json' in args) || Object.keys(args).length !== 1) return { ok: true, args };
  const text = args.tree_json;
  if (typeof text !== 'string') return { ok: false, problem: 'tree_json: must be JSON text of an object (the tree)' };
  const parsed = parseObject(text);
  return parsed.ok ? { ok: true, args: parsed.value } : { ok: false, problem: `tree_json: ${parsed.problem}` };
}

/** JSON text of an object, parsed; anything else says what it is. */
function parseObject(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `must be JSON text of an object; it cannot be read (${messageOf(error)})` };
  }
  if (!isRecord(value)) return { ok: false, problem: `must be JSON text of an object; it is ${Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`}` };
  return { ok: true, value };
}
