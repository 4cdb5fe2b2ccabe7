import type { CompileSite, RefScope } from '../../src/refs/scope.js';
import { compileMapping } from '../../src/refs/compile.js';

/** A site two steps in (`fetchUser` has run, `later` has not), strict by default. */
export function site(over: Partial<CompileSite> = {}): CompileSite {
  return {
    step: 'summarise',
    stepsBefore: 2,
    namesBefore: new Set(['fetchUser']),
    allNames: new Set(['fetchUser', 'later']),
    hasPrev: true,
    inForEach: false,
    inPipeStage: false,
    strict: true,
    ...over,
  };
}

/** A scope with empty defaults. */
export function scope(over: Partial<RefScope> = {}): RefScope {
  return { input: undefined, prev: undefined, steps: [], named: new Map(), ...over };
}

/** Compile (expecting no errors) and run once. */
export function run(mapping: unknown, sc: Partial<RefScope> = {}, si: Partial<CompileSite> = {}): unknown {
  const compiled = compileMapping(mapping, site(si));
  if (compiled.errors.length > 0) throw new Error(compiled.errors.join('\n'));
  return compiled.accessor(scope(sc));
}
