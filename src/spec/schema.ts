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

/** Every node kind: a leaf (`step`) and the combinators. */
const NODE_KINDS = ['step' as const, ...COMBINATORS];

/**
 * The deepest a node tree may nest; deeper is refused before anything runs.
 *
 * @category Build composites
 */
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
  const defs: Record<string, JSONSchemaObject> = {};
  for (const kind of NODE_KINDS) defs[kind] = kindDef(kind, 'spec', NODE);
  defs.node = { anyOf: NODE_KINDS.map((k) => ({ $ref: `#/$defs/${k}` })) };
  return defs;
}

/**
 * The model form of a node as one self-contained schema: one object whose fields are every node
 * kind's fields, `combinator` naming the kind (absent for a leaf), each nested node a reference back
 * to the root (`"$ref": "#"`). Which fields go with which kind is said in words by the compose
 * tool's description ({@link modelNodeFields}) and checked per kind when a tree arrives.
 *
 * One object, not a union of the kinds: a root `anyOf` is merged by LangChain's MCP adapter into
 * one object whose `combinator` is the last branch's constant (so every other kind fails its
 * check), and the AI SDK's MCP client puts `properties: {}` and `additionalProperties: false`
 * beside it (a schema no argument satisfies). No `$defs`, no `$ref` beside other keywords, no
 * bounds: the shape every framework's converter and the MCP SDK take as it is, and fewer tokens to
 * send a model on every turn.
 */
export function modelNodeSchema(): JSONSchemaObject {
  const properties: Record<string, JSONSchemaObject> = { combinator: { enum: [...COMBINATORS] } };
  for (const kind of NODE_KINDS) {
    const { combinator: _kind, ...fields } = kindProperties(kind);
    for (const [name, field] of Object.entries(fields)) {
      // Bounds and closed objects are checked per kind when a tree arrives, each with a message
      // naming the field; a client that checks the schema first (LangChain) would refuse the call
      // itself with one that names nothing.
      const { minItems: _items, minProperties: _props, ...kept } = field as Record<string, unknown>;
      properties[name] = kept as JSONSchemaObject;
    }
  }
  return { type: 'object', properties };
}

/**
 * Each node kind's fields in the model form, the optional ones marked `?`: `gather {calls}`,
 * `for_each {items,template,concurrency?}`, a leaf `{tool,args?}` (under `step`).
 */
export function modelNodeFields(): Record<CombinatorName | 'step', string> {
  const out = {} as Record<CombinatorName | 'step', string>;
  for (const kind of NODE_KINDS) {
    const def = kindDef(kind, 'model', ROOT) as { required: string[] };
    const fields = Object.keys(kindProperties(kind)).filter((f) => f !== 'combinator');
    out[kind] = `{${fields.map((f) => (def.required.includes(f) ? f : `${f}?`)).join(',')}}`;
  }
  return out;
}

/** A kind's fields in the model form, nested nodes referring back to the root. */
function kindProperties(kind: CombinatorName | 'step'): Record<string, JSONSchemaObject> {
  return (kindDef(kind, 'model', ROOT) as { properties: Record<string, JSONSchemaObject> }).properties;
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

/**
 * The published JSON Schema of a {@link ComposableToolSpec}.
 *
 * @category Build composites
 */
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
