/**
 * The JSON Schema of specs, written once as per-node definitions. The same definitions make the
 * schema published for `ComposableToolSpec`, the compose tool's `inputSchema` (a smaller model
 * form), and the per-node validators `validate` uses to list every problem.
 */
import type { JSONSchemaObject } from '../tool.js';
import type { CombinatorName } from './types.js';

/** Which form: `spec` (what a host writes: names, references, retries) or `model` (what a model sends: tool + args). */
export type SchemaForm = 'spec' | 'model';

/** The combinators a spec may use, in the order they are documented. */
export const COMBINATORS: readonly CombinatorName[] = ['gather', 'for_each', 'pipe', 'try_and_check', 'scope', 'annotate'];

/** The deepest a node tree may nest; deeper is refused before anything runs. */
export const MAX_TREE_DEPTH = 16;

const NODE: JSONSchemaObject = { $ref: '#/$defs/node' };

/** Fields every node of the spec form may carry. */
function commonFields(form: SchemaForm): Record<string, JSONSchemaObject> {
  if (form === 'model') return {};
  return {
    name: { type: 'string', minLength: 1 },
    when: {},
    retry: {
      type: 'object',
      required: ['attempts'],
      properties: { attempts: { type: 'integer', minimum: 1, maximum: 10 }, backoffMs: { type: 'number', minimum: 0 } },
      additionalProperties: false,
    },
    onError: { enum: ['stop', 'continue'] },
  };
}

/** One node kind's definition. `child` is what stands where a nested node goes. */
function kindDef(kind: CombinatorName | 'step', form: SchemaForm, child: JSONSchemaObject): JSONSchemaObject {
  const common = commonFields(form);
  const combinator = { const: kind };
  const object = (required: string[], properties: Record<string, JSONSchemaObject>): JSONSchemaObject => ({
    type: 'object',
    required,
    properties: { ...properties, ...common },
    additionalProperties: false,
  });
  switch (kind) {
    case 'step':
      return form === 'model'
        ? object(['tool'], { tool: { type: 'string' }, args: { type: 'object' } })
        : object(['tool'], {
            tool: { type: 'string', minLength: 1 },
            inputMapping: {},
            args: {},
            timeoutMs: { type: 'number', exclusiveMinimum: 0 },
            compensate: {
              type: 'object',
              required: ['tool'],
              properties: { tool: { type: 'string', minLength: 1 }, args: {} },
              additionalProperties: false,
            },
            combinator: { not: {} },
          });
    case 'gather':
      return object(['combinator', 'calls'], {
        combinator,
        calls: { type: 'object', minProperties: 1, additionalProperties: child },
      });
    case 'for_each':
      return object(['combinator', 'items', 'template'], {
        combinator,
        items: form === 'model' ? child : { anyOf: [{ type: 'string' }, child] },
        template: child,
        // The model form leaves the bounds to the engine, which clamps: every token is paid on every turn.
        concurrency: form === 'model' ? { type: 'integer' } : { type: 'integer', minimum: 1, maximum: 64 },
        ...(form === 'spec' ? { maxItems: { type: 'integer', minimum: 1 } } : {}),
      });
    case 'pipe':
      return object(['combinator', 'stages'], { combinator, stages: { type: 'array', minItems: 1, items: child } });
    case 'try_and_check':
      return object(['combinator', 'do', 'check'], {
        combinator,
        do: child,
        check: child,
        attempts: form === 'model' ? { type: 'integer' } : { type: 'integer', minimum: 1, maximum: 5 },
      });
    case 'scope':
      return object(['combinator', 'do'], { combinator, do: child, on_failure: { enum: ['rollback', 'keep'] } });
    case 'annotate':
      return object(['combinator', 'intent', 'do'], {
        combinator,
        intent: { type: 'string' },
        hypothesis: { type: 'string' },
        do: child,
      });
  }
}

/** The `$defs` of the spec form: one definition per node kind and a recursive `node`. */
export function nodeDefinitions(): Record<string, JSONSchemaObject> {
  const kinds = ['step' as const, ...COMBINATORS];
  const defs: Record<string, JSONSchemaObject> = {};
  for (const kind of kinds) defs[kind] = kindDef(kind, 'spec', NODE);
  defs.node = { anyOf: kinds.map((k) => ({ $ref: `#/$defs/${k}` })) };
  return defs;
}

/**
 * The model form of a node as one self-contained schema: the root is an object that is one of
 * the node kinds, and each nested node refers back to the root (`"$ref": "#"`). No `$defs`, and no
 * `$ref` beside the root's `type`: the shape every framework's schema converter and the MCP SDK
 * accept as a tool's `inputSchema`, and the smallest to send a model on every turn.
 */
export function modelNodeSchema(): JSONSchemaObject {
  const kinds = ['step' as const, ...COMBINATORS];
  return { type: 'object', anyOf: kinds.map((k) => kindDef(k, 'model', ROOT)) };
}
const ROOT: JSONSchemaObject = { $ref: '#' };

/** One node kind's definition in the given form (what the run_pipeline tool's steps reuse). */
export function kindDefinition(kind: CombinatorName | 'step', form: SchemaForm): JSONSchemaObject {
  return kindDef(kind, form, NODE);
}

/**
 * A node kind's definition with every nested node left as "an object": `validate` checks each
 * node on its own and walks into the children itself, so every error names its node.
 */
export function shallowNodeSchema(kind: CombinatorName | 'step', form: SchemaForm): JSONSchemaObject {
  return kindDef(kind, form, { type: 'object' });
}

/** The published JSON Schema of a {@link ComposableToolSpec}. */
export const COMPOSABLE_TOOL_SPEC_SCHEMA: JSONSchemaObject = {
  $id: 'https://toolweave.dev/schemas/composable-tool-spec.json',
  title: 'ComposableToolSpec',
  type: 'object',
  required: ['steps'],
  properties: {
    mode: { const: 'compose' },
    steps: { type: 'array', minItems: 1, items: NODE },
    output: {},
    outputSchema: { type: 'object' },
    schedule: { enum: ['sequential', 'auto'] },
  },
  additionalProperties: false,
  $defs: nodeDefinitions(),
};
