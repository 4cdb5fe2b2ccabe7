/** The script tests use the shared mock tools and registry; only `json` is theirs. */
export { tool as mockTool, registry, delay } from '../../helpers/tools.js';

/** Parse a script's JSON output. */
export function json(output: unknown): any {
  return JSON.parse(output as string);
}
