/**
 * Cycles between compositions, found when a composite is checked rather than when it runs: a
 * composite that reaches itself, directly or through the compositions it calls (a → b → a), can
 * never finish the step that closes the cycle (the run-time guard refuses it there).
 */

/** The names of the tools a composition calls, or `undefined` for a tool that declares none. */
export type StepToolsOf = (name: string) => readonly string[] | undefined;

/**
 * The first cycle a call to `first` reaches, as the names along it (`['a', 'b', 'a']`), or
 * `undefined`. A cycle through `self` (the composite being checked, which makes the call) counts,
 * and so does one further down that does not pass `self`.
 *
 * @param self - the composite that makes the call, when it has a name
 * @param first - the tool the call names
 * @param stepToolsOf - what each composition calls
 * @param done - names already searched without finding a cycle, shared by the calls of one spec
 */
export function cycleFrom(self: string | undefined, first: string, stepToolsOf: StepToolsOf, done: Set<string>): string[] | undefined {
  const path = self === undefined ? [] : [self];
  const visit = (name: string): string[] | undefined => {
    const at = path.indexOf(name);
    if (at >= 0) return [...path.slice(at), name];
    if (done.has(name)) return undefined;
    const next = stepToolsOf(name);
    if (next !== undefined) {
      path.push(name);
      for (const tool of next) {
        const cycle = visit(tool);
        if (cycle) return cycle;
      }
      path.pop();
    }
    // Nothing below it reaches back: no later search needs to look again.
    done.add(name);
    return undefined;
  };
  return visit(first);
}

/** The message for a cycle a step's call closes. */
export function cycleProblem(cycle: readonly string[], step: string, tool: string): string {
  return `composition cycle: ${cycle.join(' → ')} (step ${JSON.stringify(step)} calls ${JSON.stringify(tool)}): a composition may not reach itself`;
}
