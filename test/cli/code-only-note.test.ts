/**
 * What a direct call of a tool code-only does not serve is told: how a run_js script reaches it,
 * as `tools.<name>` only where a script can call it so.
 */
import { describe, expect, it } from 'vitest';
import { codeOnlyNote } from '../../src/cli/advice.js';

describe('the code-only note', () => {
  it('offers tools.<name> and callTool for a name a script can call as a member', () => {
    expect(codeOnlyNote('read_file')).toBe('"read_file" is not served directly here (code-only): call it from run_js, as `await tools.read_file({ ... })` or `await callTool("read_file", { ... })`.');
    expect(codeOnlyNote('my-tool')).toContain('`await tools["my-tool"]({ ... })`');
  });

  it('offers only callTool for a tool named then, which tools never holds (it is never a promise)', () => {
    const note = codeOnlyNote('then');
    expect(note).toBe('"then" is not served directly here (code-only): call it from run_js, as `await callTool("then", { ... })`.');
    expect(note).not.toContain('tools.then');
  });
});
