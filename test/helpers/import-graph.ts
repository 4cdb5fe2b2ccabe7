/** What a module loads, read from the sources: how a test shows an optional entry stays apart from the core. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A specifier after `from`, or in `import(...)` / `import '...'`. */
export const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

/** Every module `entry` loads, by relative import, and every package it names. */
export function importGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const statement of readFileSync(file, 'utf8').split(';')) {
      // Type-only imports are erased at build: they load nothing.
      if (/^\s*(?:import|export)\s+type\b/m.test(statement)) continue;
      for (const [, specifier] of statement.matchAll(SPECIFIER)) {
        if (specifier.startsWith('.')) pending.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
        else packages.add(specifier);
      }
    }
  }
  return { files, packages };
}
