import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { schemaToType } from '../../src/index.js';

const object = (properties: Record<string, unknown>, required: string[] = [], extra: Record<string, unknown> = {}) => ({ type: 'object', properties, required, ...extra });

describe('schemaToType: what the schema says, as TypeScript', () => {
  it('writes required fields bare and optional ones with ?, on one line when nothing is commented', () => {
    expect(schemaToType(object({ path: { type: 'string' }, tail: { type: 'integer' }, all: { type: 'boolean' } }, ['path']))).toBe('{ path: string; tail?: number; all?: boolean }');
  });

  it('puts each described field on its own line under its comment, nested objects indented', () => {
    const schema = object(
      { owner: { type: 'string', description: 'Repository owner' }, options: object({ draft: { type: 'boolean', description: 'Open as a draft', default: false } }) },
      ['owner'],
    );
    expect(schemaToType(schema)).toBe(
      ['{', '  /** Repository owner */', '  owner: string;', '  options?: {', '    /** Open as a draft (default: false) */', '    draft?: boolean;', '  };', '}'].join('\n'),
    );
  });

  it('writes enums and consts as literal unions, and names the format', () => {
    expect(schemaToType({ enum: ['open', 'closed', 7, null] })).toBe('"open" | "closed" | 7 | null');
    expect(schemaToType({ const: 'workspace' })).toBe('"workspace"');
    expect(schemaToType(object({ id: { type: 'string', format: 'uuid' } }, ['id']))).toBe('{\n  /** (format: uuid) */\n  id: string;\n}');
  });

  it('writes arrays, arrays of unions and tuples', () => {
    expect(schemaToType({ type: 'array', items: { type: 'string' } })).toBe('string[]');
    expect(schemaToType({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } })).toBe('Array<string | number>');
    expect(schemaToType({ type: 'array', items: [{ type: 'string' }, { type: 'number' }] })).toBe('[string, number]');
    expect(schemaToType({ type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'boolean' } })).toBe('[string, ...boolean[]]');
    expect(schemaToType({ type: 'array' })).toBe('unknown[]');
  });

  it('writes anyOf, oneOf, type lists and nullable as unions, each member once', () => {
    expect(schemaToType({ anyOf: [{ type: 'string' }, { type: 'string' }, object({ a: { type: 'number' } }, ['a'])] })).toBe('string | { a: number }');
    expect(schemaToType({ oneOf: [{ const: 'a' }, { const: 'b' }] })).toBe('"a" | "b"');
    expect(schemaToType({ type: ['string', 'null'] })).toBe('string | null');
    expect(schemaToType({ type: 'number', nullable: true })).toBe('number | null');
    // unknown takes in every other member.
    expect(schemaToType({ anyOf: [{ type: 'string' }, {}] })).toBe('unknown');
  });

  it('merges the fields beside a oneOf into each branch, and ignores branches that only require', () => {
    const shared = { type: 'object', properties: { kind: { type: 'string' } }, required: ['kind'] };
    expect(schemaToType({ ...shared, oneOf: [{ properties: { a: { type: 'number' } }, required: ['a'] }, { properties: { b: { type: 'boolean' } } }] })).toBe(
      '{ kind: string; a: number } | { kind: string; b?: boolean }',
    );
    expect(schemaToType({ ...object({ a: { type: 'string' }, b: { type: 'string' } }), anyOf: [{ required: ['a'] }, { required: ['b'] }] })).toBe('{ a?: string; b?: string }');
  });

  it('merges allOf', () => {
    expect(schemaToType({ allOf: [object({ a: { type: 'string' } }, ['a']), object({ b: { type: 'number' } }, ['b'])] })).toBe('{ a: string; b: number }');
  });

  it('follows $ref within the schema, through $defs and definitions, with keywords beside it', () => {
    const schema = {
      ...object({ parent: { $ref: '#/$defs/parent' }, child: { $ref: '#/definitions/child', description: 'The child' } }, ['parent']),
      $defs: { parent: object({ id: { type: 'string' } }, ['id']) },
      definitions: { child: { type: 'integer' } },
    };
    expect(schemaToType(schema)).toBe('{\n  parent: { id: string };\n  /** The child */\n  child?: number;\n}');
  });

  it('a field whose $ref is described speaks through the description it points to', () => {
    const schema = { ...object({ when: { $ref: '#/$defs/time' } }), $defs: { time: { type: 'string', description: 'An ISO time' } } };
    expect(schemaToType(schema)).toBe('{\n  /** An ISO time */\n  when?: string;\n}');
  });

  it('loosens a $ref cycle, and a $ref it cannot resolve, with a comment, and does not throw', () => {
    const tree = { $defs: { node: object({ name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, ['name']) }, $ref: '#/$defs/node' };
    expect(schemaToType(tree)).toBe('{ name: string; children?: Array<Record<string, unknown> /* recursive: #/$defs/node */> }');
    expect(schemaToType({ $ref: 'https://example.com/schema.json' })).toBe('unknown /* $ref https://example.com/schema.json not found in the schema */');
    expect(schemaToType({ $ref: '#/$defs/missing' })).toBe('unknown /* $ref #/$defs/missing not found in the schema */');
    // A self-reference through the root.
    expect(schemaToType(object({ next: { $ref: '#' } }))).toBe('{ next?: Record<string, unknown> /* recursive: # */ }');
  });

  it('writes additionalProperties as a record, beside named fields as an intersection', () => {
    expect(schemaToType({ type: 'object', additionalProperties: { type: 'string' } })).toBe('Record<string, string>');
    expect(schemaToType(object({ a: { type: 'number' } }, ['a'], { additionalProperties: { type: 'string' } }))).toBe('{ a: number } & Record<string, string>');
    expect(schemaToType({ type: 'object' })).toBe('Record<string, unknown>');
    expect(schemaToType({ type: 'object', properties: {} })).toBe('{}');
    expect(schemaToType({ type: 'object', additionalProperties: false })).toBe('{}');
  });

  it('loosens patternProperties to any key, naming the patterns in a comment', () => {
    expect(schemaToType({ type: 'object', patternProperties: { '^x-': { type: 'string' } } })).toBe('Record<string, string> /* keys matching ^x- */');
    expect(schemaToType(object({ id: { type: 'string' } }, ['id'], { patternProperties: { '^a': { type: 'number' }, '^b': { type: 'string' } } }))).toBe(
      '{ id: string } & Record<string, number | string> /* keys matching ^a, ^b */',
    );
  });

  it('quotes names that are not identifiers', () => {
    expect(schemaToType(object({ 'content-type': { type: 'string' }, $id: { type: 'string' }, '2fa': { type: 'boolean' } }))).toBe('{ "content-type"?: string; $id?: string; "2fa"?: boolean }');
  });

  it('keeps a comment on one line, cut at a word past its bound, and never ends it early', () => {
    const long = `${'word '.repeat(100)}end`;
    const out = schemaToType(object({ a: { type: 'string', description: `first line\n  second */ line` }, b: { type: 'string', description: long } }), { maxCommentChars: 40 });
    expect(out).toContain('/** first line second *\\/ line */');
    const cut = /\/\*\* (word[^*]*) \*\//u.exec(out)![1];
    expect(cut.length).toBeLessThanOrEqual(40);
    expect(cut.endsWith('word…')).toBe(true);
  });

  it('bounds nesting: past twelve levels the rest is unknown, with a comment', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20; i++) deep = object({ x: deep }, ['x']);
    const out = schemaToType(deep);
    expect(out).toContain('unknown /* nested deeper than 12 levels */');
    expect(out.match(/x:/gu)!.length).toBe(13);
  });

  it('never throws, whatever JSON it is given', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(typeof schemaToType(value)).toBe('string');
      }),
      { numRuns: 300 },
    );
    // Schemas made of schema keywords, $refs included.
    const keyword = fc.constantFrom('type', 'properties', 'items', 'anyOf', 'oneOf', 'allOf', '$ref', 'enum', 'const', 'required', 'additionalProperties', 'patternProperties', 'nullable');
    const schema = fc.letrec((tie) => ({
      node: fc.dictionary(keyword, fc.oneof(fc.constantFrom('object', 'array', 'string', '#', '#/properties/a', '#/$defs/x'), fc.array(tie('node'), { maxLength: 3 }), tie('node'), fc.boolean()), { maxKeys: 4 }),
    })).node;
    fc.assert(
      fc.property(schema, (value) => {
        expect(typeof schemaToType(value)).toBe('string');
      }),
      { numRuns: 300 },
    );
  });
});

describe('schemaToType: a schema that would write out too much', () => {
  it('stops at a bound instead of expanding $refs that branch without end', () => {
    // Each level holds ten fields that all point to the next level: 10^8 paths, no cycle.
    const $defs: Record<string, unknown> = { l8: { type: 'string' } };
    for (let level = 7; level >= 0; level--) {
      $defs[`l${level}`] = object(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, { $ref: `#/$defs/l${level + 1}` }])));
    }
    const started = performance.now();
    const out = schemaToType({ $ref: '#/$defs/l0', $defs });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(out).toContain('unknown /* the schema is too large to write out */');
    expect(out.length).toBeLessThan(1_000_000);
  });
});
