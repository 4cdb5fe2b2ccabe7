/**
 * `compose`: the model sends one combinator tree (gather, for_each, pipe, try_and_check, scope,
 * annotate, nested freely), validated against the same definitions that validate specs and run
 * by the same engine, every call through the same StepGate.
 */
import { failure } from '../codes.js';
import { toToolSet, type SideEffectingTools } from '../gate/stages/chainable.js';
import { messageOf } from '../gate/message-of.js';
import type { StepGate } from '../gate/options.js';
import { compilePlan } from '../engine/plan.js';
import type { DoorInfo } from '../tool-events.js';
import type { SnapshotProvider } from '../engine/snapshot.js';
import { childrenOf } from '../spec/nodes.js';
import { modelNodeFields, modelNodeSchema } from '../spec/schema.js';
import type { SpecNode } from '../spec/types.js';
import { checkNodeTree } from '../spec/validate-structure.js';
import type { ITool, JSONSchemaObject } from '../tool.js';
import { composeStrictSchema, readComposeArgs } from './strict-forms.js';
import { COMPOSE_TOOL_NAME } from './batching-names.js';
import { precheckBatch } from '../doors/batch-precheck.js';
import { Door } from '../doors/door.js';
import { ended } from '../engine/run-settings.js';

const COMPOSE_DOOR: DoorInfo = Object.freeze({ kind: 'compose' });

/**
 * Settings of {@link createComposeTool}.
 *
 * @category Tools for the model
 */
export interface ComposeToolOptions {
  /** The host's side-effecting tools that may be chained (the same meaning as the builder's `bind`). */
  sideEffectingTools?: SideEffectingTools;
  /** The host's snapshot/restore pair for `scope` with `on_failure: 'rollback'`. */
  snapshots?: SnapshotProvider;
  /** Per-call timeout in milliseconds (default: the engine's). */
  stepTimeoutMs?: number;
}

/**
 * The input schema the `compose` tool publishes.
 *
 * The compose tool's input schema: one object with every node kind's fields, `combinator` naming
 * the kind, each nested node a reference back to the root (see `modelNodeSchema`). Which fields
 * each kind takes is in the tool's description; each node is checked against its own kind's
 * definition when a tree arrives (`spec_invalid`, naming the node and the field).
 *
 * @category Tools for the model
 */
export function composeInputSchema(): JSONSchemaObject {
  return modelNodeSchema();
}

/**
 * The description: what each kind does, with its fields from the same definitions the tree is
 * checked against (the schema is one object, so this is where a model learns which fields go
 * together).
 */
function describeCompose(): string {
  const f = modelNodeFields();
  return (
    `Runs a tree of tool calls. A node: a leaf ${f.step} or a combinator with its fields; nodes nest. ` +
    `gather ${f.gather}: at once, by name. for_each ${f.for_each}: items a node (not a literal list); template per item, "{item}" filled. ` +
    `pipe ${f.pipe}: in order, "{result}" the previous output, "{result.a.0}" a part. try_and_check ${f.try_and_check}: fails if check fails. ` +
    `scope ${f.scope}: undoes do on failure. annotate ${f.annotate}: intent kept with do.`
  );
}
const DESCRIPTION = describeCompose();

/**
 * Make the `compose` tool, which runs a combinator tree the model writes in one call.
 *
 * A bad tree is refused with every problem listed before anything
 * runs; every call it names is checked against the host's chainability rule first.
 *
 * @example
 * ```ts
 * const compose = createComposeTool(gate, { sideEffectingTools: ['edit_file'] });
 * registry.set(compose); // a ToolRegistry from createToolRegistry
 * const result = await compose.execute({ combinator: 'gather', calls: { a: { tool: 'read_file', args: { path: 'a.ts' } }, b: { tool: 'read_file', args: { path: 'b.ts' } } } }, {});
 * ```
 *
 * @category Tools for the model
 */
export function createComposeTool(gate: StepGate, options: ComposeToolOptions = {}): ITool {
  // The host's list, made a set once: every call and every run reads it.
  const sideEffectingTools = toToolSet(options.sideEffectingTools);
  const tool: ITool = {
    id: `toolweave:${COMPOSE_TOOL_NAME}`,
    name: COMPOSE_TOOL_NAME,
    displayName: 'Compose',
    description: DESCRIPTION,
    inputSchema: composeInputSchema(),
    strictInputSchema: composeStrictSchema(),
    hasSideEffects: sideEffectingTools.size > 0,
    // A door: its calls hold the budget's places, not the door itself; a dry run does not run it.
    composition: true,
    async execute(given, context) {
      try {
        // A strict client's form (the tree as JSON text) read as the tree.
        const read = readComposeArgs(given);
        if (!read.ok) return failure('spec_invalid', `Invalid tree: ${read.problem}`, { errors: [read.problem] });
        const tree = read.args;
        const errors: string[] = [];
        checkNodeTree(tree, 'tree', 'model', errors);
        if (errors.length) return failure('spec_invalid', `Invalid tree: ${errors.join('; ')}`, { errors });
        const ctx = context ?? {};
        const plan = compilePlan({ steps: [tree as unknown as SpecNode] }, { references: false, stepTimeoutMs: options.stepTimeoutMs, stepPath: () => 'tree' });
        if (plan.errors.length) return failure('spec_invalid', `Invalid tree: ${plan.errors.join('; ')}`, { errors: plan.errors });
        const leaves = leavesOf(tree as unknown as SpecNode, 'tree');
        // The outermost door of a run that may pause records it.
        // The tree is the door's input: a tree a step hands on is found by it, with its labels.
        return await door.run(tree, ctx, () => {
          const entered = door.enter(ctx, plan.stepTimeoutMs);
          if (!entered.ok) return Promise.resolve(entered.refusal);
          // Every call the tree names may run here, or none runs.
          const refusal = precheckBatch(entered.state, leaves, tool);
          if (refusal) return Promise.resolve(ended(entered.state, refusal));
          return plan.runEntered(tree, ctx, door.settingsFor(ctx), entered.state);
        });
      } catch (error) {
        return failure('step_threw', `compose failed unexpectedly: ${messageOf(error)}`);
      }
    },
  };
  // The tree's nodes read each other's results: code, not the model, reads them.
  const door = new Door(gate, tool, { sideEffectingTools, snapshots: options.snapshots, reader: 'code', validateArgs: true, door: COMPOSE_DOOR, readsJsonText: true });
  return tool;
}

/** Every leaf of a (valid) tree with its place, in tree order. */
function leavesOf(node: SpecNode, at: string): { tool: string; at: string }[] {
  if (node.combinator === undefined) return [{ tool: node.tool, at }];
  return childrenOf(node).flatMap((child) => leavesOf(child.node as SpecNode, `${at}.${child.at}`));
}
