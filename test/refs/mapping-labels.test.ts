import { describe, expect, it } from 'vitest';
import { joinLabels, sourceLabel, TRUSTED, type Label } from '../../src/flows/label.js';
import { flatten, partOf, type LabelNode, type LabelTree } from '../../src/flows/label-tree.js';
import { labelScopeOf, type LabelScope } from '../../src/flows/label-scope.js';
import { compileMapping } from '../../src/refs/compile.js';
import { site } from './helpers.js';

const untrusted = (tool: string) => sourceLabel(tool, 's', false);
const trusted = (tool: string) => sourceLabel(tool, 's', true);

/** The labels a compiled mapping gives, as a function of a scope of labels. */
function labelsOf(mapping: unknown): (l: LabelScope) => LabelTree {
  const compiled = compileMapping(mapping, site({ strict: false }));
  expect(compiled.errors).toEqual([]);
  return compiled.labels;
}

/** A scope whose input is labelled `input`, previous output `prev`, literals `literal`. */
function scopeOf(input: LabelTree, prev: LabelTree, literal: Label = TRUSTED, steps: LabelTree[] = [], named = new Map<string, LabelTree>()): LabelScope {
  return { ...labelScopeOf(input, literal), prev, steps, named };
}

const field = (tree: LabelTree, key: string) => flatten((tree as LabelNode).fields![key]);

describe("a compiled mapping's labels, made again only when what they read changed", () => {
  it('one reference: the same tree for the same root, and a new one the moment the root or the literal label is another', () => {
    const labels = labelsOf({ n: '$prev.n' });
    const clean = trusted('clean');
    const first = labels(scopeOf(TRUSTED, clean));
    expect(labels(scopeOf(TRUSTED, clean))).toBe(first);
    expect(field(first, 'n').trusted).toBe(true);
    // Another previous output, untrusted: never the tree made for the trusted one.
    const dirty = untrusted('web');
    const second = labels(scopeOf(TRUSTED, dirty));
    expect(second).not.toBe(first);
    expect(field(second, 'n')).toMatchObject({ trusted: false, sources: [{ tool: 'web' }] });
    // Back to the trusted root: trusted again, and the untrusted text the model wrote taints the object's own label.
    expect(field(labels(scopeOf(TRUSTED, clean)), 'n').trusted).toBe(true);
    const model = untrusted('model');
    const written = labels(scopeOf(TRUSTED, clean, model));
    expect((written as LabelNode).own).toBe(model);
    expect(flatten(written).trusted).toBe(false);
  });

  it('one reference into a tree: the part is found again from a new tree with the same shape', () => {
    const labels = labelsOf({ to: '$input.to' });
    const a: LabelTree = { own: TRUSTED, fields: { to: trusted('a') } };
    const b: LabelTree = { own: TRUSTED, fields: { to: untrusted('b') } };
    expect(field(labels(scopeOf(a, TRUSTED)), 'to').trusted).toBe(true);
    expect(field(labels(scopeOf(b, TRUSTED)), 'to')).toMatchObject({ trusted: false, sources: [{ tool: 'b' }] });
    expect(field(labels(scopeOf(a, TRUSTED)), 'to').trusted).toBe(true);
  });

  it('several references and literals: the same tree while every root is the same, a new one when any one changes', () => {
    const labels = labelsOf({ to: '$input.to', amount: '$prev.amount', note: 'rent', first: '$steps[0].x', named: '$steps.fetchUser.id' });
    const steps = [trusted('s0')];
    const named = new Map<string, LabelTree>([['fetchUser', trusted('user')]]);
    const base = () => scopeOf(TRUSTED, trusted('p'), TRUSTED, steps, named);
    const first = labels(base());
    expect(labels(base())).toBe(first);
    expect(flatten(first).trusted).toBe(true);
    // Each root in turn becomes untrusted: the tree is new, and says so in that field alone.
    const changed: [string, (l: LabelScope) => void][] = [
      ['to', (l) => (l.input = untrusted('i'))],
      ['amount', (l) => (l.prev = untrusted('p2'))],
      ['first', (l) => (l.steps = [untrusted('s0b')])],
      ['named', (l) => (l.named = new Map([['fetchUser', untrusted('user2')]]))],
    ];
    for (const [key, change] of changed) {
      const l = base();
      change(l);
      const tree = labels(l);
      expect(tree).not.toBe(first);
      expect(field(tree, key).trusted).toBe(false);
      for (const other of ['to', 'amount', 'note', 'first', 'named'].filter((k) => k !== key)) expect(field(tree, other).trusted).toBe(true);
      // And back: trusted again.
      expect(flatten(labels(base())).trusted).toBe(true);
    }
    // The literal's label is the mapping's: the model's text taints `note` and the object.
    const model = untrusted('model');
    const written = labels(scopeOf(TRUSTED, trusted('p'), model, steps, named));
    expect(field(written, 'note')).toBe(model);
    // Read from the object, every field carries the object's own label.
    expect(flatten(partOf(written, 'to')).trusted).toBe(false);
  });

  it('a JSONPath reference carries all of its root, found again when the root changes', () => {
    const labels = labelsOf({ ids: '$prev[*].id' });
    const clean: LabelTree = { own: TRUSTED, items: [trusted('a')] };
    const dirty: LabelTree = { own: TRUSTED, items: [joinLabels(trusted('a'), untrusted('b'))] };
    expect(field(labels(scopeOf(TRUSTED, clean)), 'ids').trusted).toBe(true);
    expect(field(labels(scopeOf(TRUSTED, dirty)), 'ids').trusted).toBe(false);
    expect(field(labels(scopeOf(TRUSTED, clean)), 'ids').trusted).toBe(true);
  });

  it('an object with a template or a nested object still answers the labels of what it reads now', () => {
    const labels = labelsOf({ text: 'to ${$input.to}', nested: { n: '$prev.n' } });
    const clean = trusted('c');
    const first = labels(scopeOf(clean, clean));
    expect(labels(scopeOf(clean, clean))).toBe(first);
    expect(flatten(labels(scopeOf(untrusted('i'), clean))).trusted).toBe(false);
    expect(flatten(labels(scopeOf(clean, untrusted('p')))).trusted).toBe(false);
    expect(flatten(labels(scopeOf(clean, clean))).trusted).toBe(true);
  });
});
