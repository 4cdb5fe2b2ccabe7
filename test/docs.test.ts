import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { USAGE } from '../src/cli/args.js';
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

/** Every `.ts` file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('the TSDoc examples', () => {
  it("register tools as createToolRegistry's set takes them: the tool first, a name only after it", () => {
    const SRC = fileURLToPath(new URL('../src/', import.meta.url));
    const wrong: string[] = [];
    for (const file of sourceFiles(SRC)) {
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        // In a doc comment, `registry.set('name', tool)` or `registry.set(tool.name, tool)` would not compile.
        if (/^\s*\*.*\bregistry\.set\(\s*(['"`]|[\w.]+\.name\s*,)/u.test(line)) wrong.push(`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(wrong).toEqual([]);
  });
});

describe('docs/mcp.md', () => {
  const mcp = readFileSync(fileURLToPath(new URL('../docs/mcp.md', import.meta.url)), 'utf8');

  it('lists every option of toolweave mcp that its usage text gives', () => {
    const options = [...USAGE.slice(USAGE.indexOf('Options of mcp:')).matchAll(/^ {2}(--[a-z-]+)/gmu)].map((m) => m[1]);
    expect(options).toEqual(expect.arrayContaining(['--code-only', '--record', '--chain']));
    const start = mcp.indexOf('Options: `--trust-annotations`');
    const listed = mcp.slice(start, mcp.indexOf('\n\n', start));
    expect(options.filter((option) => !listed.includes(`\`${option}`))).toEqual([]);
  });

  it('shows that a reference with brackets is quoted in a YAML flow mapping, and the quoted form reads as the reference', () => {
    const block = [...mcp.matchAll(/```yaml\n([\s\S]*?)```/gu)].map((m) => m[1]).find((text) => text.includes('"$steps[0]'));
    expect(block, 'a YAML example with "$steps[0]..." quoted').toBeDefined();
    const line = block!.split('\n').find((text) => text.includes('"$steps[0]'))!;
    const quoted = /"(\$steps\[0\][^"]*)"/u.exec(line)![1];
    // The quotes are needed: unquoted in a flow mapping, YAML reads the bracket as its own.
    expect(() => parseYaml(line.replace(`"${quoted}"`, quoted).replace(/#.*$/u, ''))).toThrow();
    expect(JSON.stringify(parseYaml(block!))).toContain(JSON.stringify(quoted));
  });
});
