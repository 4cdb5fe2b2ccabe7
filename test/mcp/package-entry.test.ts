/**
 * `import 'toolweave'` loads neither the MCP SDK nor the YAML parser: `toolweave/mcp` and the bin
 * are the only modules that use them. Read from the sources' import graph (type-only imports are
 * erased at build, so they load nothing).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers.js';

/** Every module reachable from `entry` by imports that load at run time, and every package named. */
function runtimeImports(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
    for (const statement of source.statements) {
      const loads =
        (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) ||
        (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier !== undefined);
      if (!loads) continue;
      const specifier = ((statement as ts.ImportDeclaration | ts.ExportDeclaration).moduleSpecifier as ts.StringLiteral).text;
      if (specifier.startsWith('.')) visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/u, '.ts')));
      else packages.add(specifier);
    }
  };
  visit(entry);
  return { files: [...files], packages: [...packages] };
}

describe('the package entries', () => {
  it("import 'toolweave' loads neither the MCP SDK nor yaml, nor toolweave/mcp or the bin", () => {
    const { files, packages } = runtimeImports(path.join(REPO, 'src/index.ts'));
    expect(files.length).toBeGreaterThan(20);
    expect(packages.filter((name) => name.startsWith('@modelcontextprotocol/') || name === 'yaml')).toEqual([]);
    expect(files.filter((file) => file.includes(`${path.sep}mcp${path.sep}`) || file.includes(`${path.sep}cli${path.sep}`))).toEqual([]);
  });

  it('toolweave/mcp uses the SDK and the core by its public entry only, and not yaml', () => {
    const { files, packages } = runtimeImports(path.join(REPO, 'src/mcp/index.ts'));
    expect(packages).toEqual(expect.arrayContaining(['@modelcontextprotocol/sdk/server/index.js', '@modelcontextprotocol/sdk/types.js']));
    expect(packages).not.toContain('yaml');
    const mcpFiles = files.filter((file) => file.includes(`${path.sep}src${path.sep}mcp${path.sep}`));
    for (const file of mcpFiles) {
      const core = [...readFileSync(file, 'utf8').matchAll(/from '(\.\.\/[^']+)'/gu)].map((m) => m[1]);
      expect(core.filter((specifier) => specifier !== '../index.js'), file).toEqual([]);
    }
  });

  it('exports toolweave/mcp and the bin, with the SDK a dependency pinned as the others are', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
    expect(pkg.exports['./mcp']).toEqual({ types: './dist/mcp/index.d.ts', default: './dist/mcp/index.js' });
    expect(pkg.bin).toEqual({ toolweave: './dist/cli/toolweave.js' });
    // Installed with the package, so the bin and toolweave/mcp need nothing added by hand.
    expect(pkg.dependencies['@modelcontextprotocol/sdk']).toMatch(/^1\.\d+\.\d+$/u);
    expect(pkg.peerDependencies['@modelcontextprotocol/sdk']).toBeUndefined();
    expect(pkg.devDependencies['@modelcontextprotocol/sdk']).toBeUndefined();
    expect(readFileSync(path.join(REPO, 'src/cli/toolweave.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });
});
