/**
 * The house rules of src/, checked from the code's own imports: no circle of imports (type
 * imports and re-exports included: a type two layers share lives below both), and no file over
 * 400 lines (split by job). See docs/architecture.md.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every file of src/ another file of src/ imports, re-exports or loads, by the importing file. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  const statement = /(?:import|export)\s[^'"`;]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(statement)) {
      const target = resolve(dirname(file), (match[1] ?? match[2]).replace(/\.js$/, '.ts'));
      if (known.has(target)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan), each a circle of imports. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file)!) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) found.push(component);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the layout of src/', () => {
  const files = sourceFiles(SRC);

  it('has no circle of imports, type imports included', () => {
    const found = circles(importGraph(files)).map((component) => component.map((file) => relative(SRC, file)).sort());
    expect(found).toEqual([]);
  });

  it('finds a circle when there is one (the check itself works)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circles(graph).map((c) => c.sort())).toEqual([['a', 'b', 'c']]);
  });

  it(`has no file over ${MAX_LINES} lines`, () => {
    const long = files
      .map((file) => [relative(SRC, file), readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > MAX_LINES + 1);
    expect(long).toEqual([]);
  });

  it('writes the call pipeline in one file, each stage a file of its own under gate/stages', () => {
    const stages = readdirSync(join(SRC, 'gate/stages')).filter((name) => name.endsWith('.ts'));
    const pipeline = readFileSync(join(SRC, 'gate/pipeline.ts'), 'utf8');
    // Every stage file is imported by the pipeline, so the order lives in that one place.
    for (const stage of stages) expect(pipeline, stage).toContain(`./stages/${stage.replace(/\.ts$/, '.js')}`);
  });
});
