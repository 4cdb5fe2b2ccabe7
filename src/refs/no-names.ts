/**
 * The `named` map of a run whose spec names no node, for its values and for their labels: no node
 * can write it (only a named node does), and a `$steps.<name>` reference reads nothing from it.
 * One is shared by every such run, so it refuses writes: a mistake could never leak one run's
 * output, or its label, into another.
 */

/** A `named` map that stays empty: see the module comment. */
export class NoNames<V> extends Map<string, V> {
  override set(): this {
    throw new Error('This spec names no node: there is nothing to record by name.');
  }
}

/** The shared empty `named` map of values. */
export const NO_NAMES: Map<string, unknown> = new NoNames<unknown>();
