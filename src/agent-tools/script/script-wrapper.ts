/**
 * How the script's body becomes code QuickJS evaluates, and how a position QuickJS reports in
 * that code maps back to the script's own line and column. The two live together because the
 * mapping is only right for the wrapper as written here.
 */

/** The file name the script is evaluated under; error stacks name it, and the line is read from it. */
export const SCRIPT_FILENAME = 'run_js.js';

/** How many lines {@link wrapScript} puts before the script's first line. */
const WRAPPER_LINES_BEFORE = 1;

/**
 * The script's body as an async function called at once; evaluating it gives the promise of the
 * script's answer. The wrapper sits on its own lines, so a line in an error is the script's line
 * plus {@link WRAPPER_LINES_BEFORE}.
 */
export function wrapScript(code: string): string {
  return `(async () => {\n${code}\n})()`;
}

/** The parameter an instrumented script's function takes the host's site functions under (see `script-instrument.ts`). */
export const INSTRUMENTED_PARAMETER = '__tw';

/**
 * An instrumented script's body as an async function of the site functions, which the host calls
 * with them. On the same lines as {@link wrapScript}, so a position maps back the same way.
 */
export function wrapInstrumented(code: string): string {
  return `(async (${INSTRUMENTED_PARAMETER}) => {\n${code}\n})`;
}

/**
 * The position in the script from a QuickJS stack (`at f (run_js.js:LINE:COL)`): the first frame
 * in the script's file, minus the wrapper's line. A line past the script's last is the wrapper's
 * closing line (the script left something open); the caller says what that means.
 */
export function positionOf(stack: string): { line?: number; column?: number } {
  const match = new RegExp(`${SCRIPT_FILENAME.replace(/\./g, '\\.')}:(\\d+)(?::(\\d+))?`).exec(stack);
  if (!match) return {};
  const line = Number(match[1]) - WRAPPER_LINES_BEFORE;
  if (!(line >= 1)) return {};
  return match[2] === undefined ? { line } : { line, column: Number(match[2]) };
}
