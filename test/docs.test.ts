import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/index.js';

const guide = readFileSync(fileURLToPath(new URL('../docs/guide.md', import.meta.url)), 'utf8');
/** The codes table: the rows of the "Refusal and failure codes" section. */
const codesSection = guide.slice(guide.indexOf('## Refusal and failure codes'));
const rows = [...codesSection.matchAll(/^\| `([a-z_]+)` \|/gmu)].map((m) => m[1]);

describe('docs/guide.md', () => {
  it('has a row in the refusal table for every code in ERROR_CODES', () => {
    expect(Object.keys(ERROR_CODES).filter((code) => !rows.includes(code))).toEqual([]);
  });

  it('lists no code that does not exist, and none twice', () => {
    expect(rows.filter((code) => !(code in ERROR_CODES))).toEqual([]);
    expect(new Set(rows).size).toBe(rows.length);
  });
});
