/**
 * A result of the wrong shape, refused by the SDK's own validator, told in one line: the issues the
 * validator really gives for each shape, not made-up ones.
 */
import { CallToolResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { describeIssues, isInvalidResult } from '../../src/mcp/invalid-result.js';

function told(schema: typeof CallToolResultSchema | typeof ListToolsResultSchema, value: unknown): string {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('the value was valid');
  expect(isInvalidResult(parsed.error)).toBe(true);
  return describeIssues(parsed.error.issues);
}

describe('describeIssues', () => {
  it('says which field is wrong and what it must be', () => {
    expect(told(CallToolResultSchema, { content: 'x' })).toBe('content must be an array');
    expect(told(CallToolResultSchema, { content: [], isError: 'yes' })).toBe('isError must be a boolean');
    expect(told(CallToolResultSchema, { content: [], structuredContent: 5 })).toBe('structuredContent must be an object');
  });

  it('in a content block: the missing field of the block it meant, or every type allowed', () => {
    expect(told(CallToolResultSchema, { content: [{ type: 'text', text: 'ok' }, { type: 'text' }] })).toBe('content[1].text must be a string');
    expect(told(CallToolResultSchema, { content: [{ type: 'video', text: 'x' }] })).toMatch(/^content\[0\]\.type must be one of "text", "image", "audio", "resource_link", "resource"/u);
  });

  it('counts the other problems, on one line', () => {
    expect(told(ListToolsResultSchema, { tools: [{ name: 1 }] })).toMatch(/^tools\[0\]\.name must be a string \(and \d+ more problems?\)$/u);
    expect(isInvalidResult(new Error('plain'))).toBe(false);
  });
});
