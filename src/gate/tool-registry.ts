/**
 * A registry of tools by name that keeps its own version: every change bumps it, so a gate built
 * on it (`createStepGate({ ...registry.gateOptions })`) reuses what a run's check resolved for as
 * long as nothing changed, and never a tool that was replaced or removed. A host that keeps its
 * own map must bump a version by hand for the same speed (see `StepGateOptions.version`), and one
 * it forgets to bump would keep resolving the old tool.
 */
import type { ITool } from '../tool.js';
import type { StepGateOptions } from './options.js';

/**
 * What {@link createToolRegistry} makes.
 *
 * @category The gate
 */
export interface ToolRegistry {
  /** The tool registered under `name`, if any. */
  get(name: string): ITool | undefined;
  /**
   * Register `tool` under `name` (default: its own name), replacing any tool registered there.
   *
   * @throws TypeError when the name is not a non-empty string: a configuration error.
   */
  set(tool: ITool, name?: string): this;
  /** Remove the tool registered under `name`; whether there was one. */
  delete(name: string): boolean;
  /** Every registered name, in the order they were first registered. */
  names(): string[];
  /** Every registered tool, in the same order (for an orchestrator, or `renderUsageGuide`). */
  tools(): ITool[];
  /** The registry's version: a number that changes with every `set` and every `delete` that removes a tool. */
  readonly version: number;
  /** `resolve`, `names` and `version` for `createStepGate`: `createStepGate({ ...registry.gateOptions })`. */
  readonly gateOptions: Required<Pick<StepGateOptions, 'resolve' | 'names' | 'version'>>;
}

/**
 * Make a {@link ToolRegistry}, holding `tools` under their own names.
 *
 * @example
 * ```ts
 * const registry = createToolRegistry([lookup, format]);
 * const gate = createStepGate({ ...registry.gateOptions, checks: [myPolicy] });
 * registry.set(lookupV2, 'lookup'); // the next run resolves lookupV2; no version to bump by hand
 * ```
 *
 * @category The gate
 */
export function createToolRegistry(tools: Iterable<ITool> = []): ToolRegistry {
  const byName = new Map<string, ITool>();
  let version = 0;
  const registry: ToolRegistry = {
    get: (name) => byName.get(name),
    set(tool, name = tool?.name) {
      if (typeof name !== 'string' || name.trim() === '') {
        throw new TypeError(`A tool is registered under a non-empty name; got ${JSON.stringify(name) ?? String(name)}. Give the tool a name, or pass one: registry.set(tool, "name").`);
      }
      byName.set(name, tool);
      version++;
      return this;
    },
    delete(name) {
      if (!byName.delete(name)) return false;
      version++;
      return true;
    },
    names: () => [...byName.keys()],
    tools: () => [...byName.values()],
    get version() {
      return version;
    },
    gateOptions: {
      resolve: (name) => byName.get(name),
      names: () => byName.keys(),
      version: () => version,
    },
  };
  for (const tool of tools) registry.set(tool);
  return registry;
}
