/**
 * The API reference, converted from typedoc.json as `npm run docs` does, then rendered into a
 * temporary folder: titled after the package, with one module per public entry named as a user
 * imports it (`toolweave`, `toolweave/<subpath>`), never after its file (`index`, `stores/redis`);
 * every entry in a category and with a one-line summary; the guides rendered as pages whose links
 * all lead somewhere.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, type DeclarationReflection, type ProjectReflection, ReflectionKind } from 'typedoc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
/** What a user imports, for every entry in package.json `exports`. */
const specifiers = Object.keys(pkg.exports).map((subpath) => (subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//u, '')}`));

/** The root's categories, in the order a user meets them. */
const ROOT_CATEGORIES = [
  'Build composites',
  'The gate',
  'Untrusted data',
  'Tools for the model',
  'Code mode / discovery',
  'Observations',
  'Tools and results',
  'Adapters: presenting results',
  'Forge: composites from recordings',
  'Errors and codes',
];

/** Where a user starts, by category: each must be filed where a reader looks for it. */
const FILED = {
  ComposableToolBuilder: 'Build composites',
  createStepGate: 'The gate',
  createRunPipelineTool: 'Tools for the model',
  createComposeTool: 'Tools for the model',
  createScriptTool: 'Code mode / discovery',
  createToolCatalog: 'Code mode / discovery',
  withObservations: 'Observations',
  ITool: 'Tools and results',
  presentResult: 'Adapters: presenting results',
  ERROR_CODES: 'Errors and codes',
  // Forging reads recordings; it is not the builder's, so it has a category of its own.
  mineChains: 'Forge: composites from recordings',
  traceFlow: 'Forge: composites from recordings',
  recordCalls: 'Forge: composites from recordings',
  forgeFromRun: 'Forge: composites from recordings',
};

/** Text and byte helpers the root entry does not export: a host has no use for them. */
const NOT_EXPORTED = [
  'cutUtf8',
  'utf8ByteLength',
  'splitLines',
  'capUtf8',
  'looksLikePathList',
  'shapePathList',
  'ShapedPathList',
  'GroupedUnit',
  'resolveScriptLimits',
  'ScriptLimits',
];

/** A summary longer than this is no longer one line in the reference's index. */
const MAX_SUMMARY_CHARS = 160;

/** The guides: every Markdown page under docs/ (but the generated reference), and the examples' README. */
const GUIDES = [
  ...readdirSync(path.join(REPO, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md') && !file.startsWith(`api${path.sep}`))
    .map((file) => path.join('docs', file)),
  path.join('examples', 'README.md'),
];

/** A guide's page title: its front matter's `title`, else its file name, as typedoc names it. */
function titleOf(guide: string): string {
  const text = readFileSync(path.join(REPO, guide), 'utf8');
  const title = /^---\n(?:.*\n)*?title: *"?([^"\n]+)"?\n(?:.*\n)*?---\n/u.exec(text)?.[1];
  return title ?? path.basename(guide, '.md');
}

let app: Application;
let project: ProjectReflection;
const warnings: string[] = [];
let out: string;

beforeAll(async () => {
  app = await Application.bootstrapWithPlugins({ options: path.join(REPO, 'typedoc.json') });
  // `npm run docs` fails on any warning; collect them so the test names each one.
  const log = app.logger.log.bind(app.logger);
  app.logger.log = (message, level) => {
    if (level >= 2) warnings.push(String(message));
    log(message, level);
  };
  const converted = await app.convert();
  expect(converted, 'typedoc could not convert the sources').toBeDefined();
  project = converted!;
  app.validate(project);
  out = mkdtempSync(path.join(tmpdir(), 'toolweave-api-'));
  await app.generateDocs(project, out);
}, 180_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

function modules(): DeclarationReflection[] {
  return project.getChildrenByKind(ReflectionKind.Module);
}

function rootModule(): DeclarationReflection | ProjectReflection {
  return modules().length ? (project.getChildByName(pkg.name) as DeclarationReflection) : project;
}

/** An entry's short summary as the index shows it: its own comment's, else its first signature's. */
function summaryOf(entry: DeclarationReflection): string {
  const own = entry.comment?.getShortSummary(true) ?? [];
  const parts = own.some((part) => part.text.trim()) ? own : (entry.signatures?.[0]?.comment?.getShortSummary(true) ?? []);
  return parts.map((part) => part.text).join('').replace(/\s+/gu, ' ').trim();
}

describe('the API reference', () => {
  it('is titled toolweave, with a module for every public entry, named as it is imported', () => {
    expect(project.name).toBe('toolweave');
    const names = modules().map((m) => m.name);
    // With one entry the project itself is its module.
    expect((names.length ? names : [project.name]).sort()).toEqual([...specifiers].sort());
    const root = rootModule();
    expect(root.getChildByName('ComposableToolBuilder')?.kind).toBe(ReflectionKind.Class);
    expect(root.getChildByName('createStepGate')?.kind).toBe(ReflectionKind.Function);
  });

  it('converts, validates and renders without a warning', () => {
    expect(warnings).toEqual([]);
  });

  it('groups the root entry into its categories, in order, leaving nothing uncategorized', () => {
    const root = rootModule();
    expect(root.categories?.map((c) => c.title)).toEqual(ROOT_CATEGORIES);
    const filedUnder = (name: string) => root.categories?.find((c) => c.children.some((child) => child.name === name))?.title;
    expect(Object.fromEntries(Object.keys(FILED).map((name) => [name, filedUnder(name)]))).toEqual(FILED);
    const fallback = app.options.getValue('defaultCategory');
    for (const module of [root, ...modules()]) {
      const uncategorized = (module.children ?? []).filter(
        (child) => !module.categories?.some((c) => c.title !== fallback && c.children.includes(child)),
      );
      expect(uncategorized.map((child) => `${module.name}.${child.name}`)).toEqual([]);
    }
  });

  it("files every name the forge exports under the forge's category, none under the builder's", async () => {
    const forged = Object.keys(await import('../../src/forge/index.js'));
    expect(forged.length).toBeGreaterThan(5);
    const category = (title: string) => rootModule().categories?.find((c) => c.title === title)?.children.map((child) => child.name) ?? [];
    expect(category('Build composites').filter((name) => forged.includes(name))).toEqual([]);
    expect(forged.filter((name) => !category('Forge: composites from recordings').includes(name))).toEqual([]);
  });

  it("shows the index's heading once, and the root module's page names every other entry", () => {
    const index = readFileSync(path.join(out, 'index.html'), 'utf8');
    expect([...index.matchAll(/<h1[^>]*>(?:(?!<\/h1>)[\s\S])*?toolweave(?:(?!<\/h1>)[\s\S])*?<\/h1>/gu)]).toHaveLength(1);
    const rootPage = readFileSync(path.join(out, 'modules', 'toolweave.html'), 'utf8');
    expect(specifiers.filter((specifier) => specifier !== pkg.name && !rootPage.includes(specifier))).toEqual([]);
  });

  it('gives every entry of every module a one-line summary', () => {
    const entries = modules().flatMap((module) => (module.children ?? []).map((child) => ({ name: `${module.name}.${child.name}`, summary: summaryOf(child) })));
    expect(entries.length).toBeGreaterThan(100);
    expect(entries.filter((e) => !e.summary).map((e) => e.name)).toEqual([]);
    expect(entries.filter((e) => e.summary.length > MAX_SUMMARY_CHARS).map((e) => `${e.name}: ${e.summary}`)).toEqual([]);
  });

  it('renders every guide as a page', () => {
    const pages = project.documents?.map((d) => d.name) ?? [];
    expect(GUIDES.length).toBeGreaterThan(3);
    expect(GUIDES.map(titleOf).filter((title) => !pages.includes(title))).toEqual([]);
  });

  it('renders no link that leads nowhere or opens a guide as raw Markdown', () => {
    const files = readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.html'));
    expect(files).toContain(path.join('documents', `${titleOf('docs/guide.md')}.html`));
    const dead: string[] = [];
    for (const file of files) {
      const html = readFileSync(path.join(out, file), 'utf8');
      for (const [, href] of html.matchAll(/href="([^"#]+)(?:#[^"]*)?"/gu)) {
        if (/^[a-z]+:/u.test(href)) continue;
        const target = path.resolve(path.dirname(path.join(out, file)), decodeURI(href));
        if (href.endsWith('.md') || !existsSync(target)) dead.push(`${file} -> ${href}`);
      }
    }
    expect(dead).toEqual([]);
  });

  it('keeps text and byte helpers out of the root entry', async () => {
    const runtime = Object.keys(await import('../../src/index.js'));
    expect(runtime).toContain('createStepGate');
    expect(NOT_EXPORTED.filter((name) => runtime.includes(name))).toEqual([]);
    const root = rootModule();
    expect(NOT_EXPORTED.filter((name) => root.getChildByName(name))).toEqual([]);
  });
});
