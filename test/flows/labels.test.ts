import { describe, expect, it } from 'vitest';
import { joinLabels, MAX_LABEL_SOURCES, sourceLabel, TRUSTED, type Label } from '../../src/flows/label.js';
import { flatten, joinTree, partOf, treeWithParts } from '../../src/flows/label-tree.js';
import { readStoredTree } from '../../src/flows/stored-labels.js';
import { SessionLabels } from '../../src/flows/session-labels.js';

const untrusted = (tool: string) => sourceLabel(tool, 's', false);
/** A label as a journal writes and reads it back. */
const plain = (label: unknown) => JSON.parse(JSON.stringify(label)) as Label;

describe('labels', () => {
  it('joins: trusted only if both are, the sources of both once each, the readers of both', () => {
    expect(joinLabels(TRUSTED, TRUSTED)).toBe(TRUSTED);
    const a = sourceLabel('a', 's', true, ['ann', 'bob']);
    const b = sourceLabel('b', 's', false, ['bob']);
    expect(plain(joinLabels(a, b))).toEqual({ trusted: false, sources: [{ tool: 'a', step: 's' }, { tool: 'b', step: 's' }], readers: ['bob'] });
    expect(joinLabels(a, a)).toBe(a);
    expect(joinLabels(joinLabels(a, b), b).sources).toHaveLength(2);
  });

  it('joins a label with one built on it at once, and in full one read back from a journal', () => {
    const read = untrusted('read');
    const built = joinLabels(sourceLabel('format', 's', true), read);
    // Built on `read`: it holds all `read` says, so the join is `built` itself.
    expect(joinLabels(read, built)).toBe(built);
    expect(joinLabels(built, read)).toBe(built);
    // A label from a journal carries no numbers: joined in full, never taken as contained.
    const restored = plain(built);
    expect(Object.keys(restored).sort()).toEqual(['sources', 'trusted']);
    const joined = joinLabels(restored, untrusted('web'));
    expect(joined.trusted).toBe(false);
    expect(joined.sources.map((s) => s.tool)).toEqual(['format', 'read', 'web']);
    expect(joinLabels(TRUSTED, restored).sources).toHaveLength(2);
  });

  it('answers the label that already says all a join adds, and a new one whenever it adds anything', () => {
    const ab = joinLabels(untrusted('a'), untrusted('b'));
    // Not joined from one another, but `ab` holds all that `a` says.
    const a = untrusted('a');
    expect(joinLabels(ab, a)).toBe(ab);
    expect(joinLabels(a, ab)).toBe(ab);
    // Less trusted, fewer readers or more sources beyond the list: something is added.
    const trustedAb = joinLabels(sourceLabel('a', 's', true), sourceLabel('b', 's', true));
    const less = joinLabels(trustedAb, untrusted('a'));
    expect(less).not.toBe(trustedAb);
    expect(less.trusted).toBe(false);
    const read = joinLabels(ab, sourceLabel('a', 's', false, ['ann']));
    expect(read).not.toBe(ab);
    expect(read.readers).toEqual(['ann']);
    let full = TRUSTED;
    for (let i = 0; i < MAX_LABEL_SOURCES + 1; i++) full = joinLabels(full, untrusted(`t${i}`));
    const listed = joinLabels(untrusted('t0'), untrusted('t1'));
    expect(joinLabels(full, listed)).toBe(full);
    expect(joinLabels(listed, full)).toBe(full);
    expect(joinLabels(full, full).moreSources).toBe(1);
  });

  it(`names at most ${MAX_LABEL_SOURCES} sources and counts the rest`, () => {
    let label = TRUSTED;
    for (let i = 0; i < MAX_LABEL_SOURCES + 5; i++) label = joinLabels(label, untrusted(`t${i}`));
    expect(label.sources).toHaveLength(MAX_LABEL_SOURCES);
    expect(label.moreSources).toBe(5);
  });

  it('counts the sources beyond the list once when two labels count the same ones, however often they meet', () => {
    const build = () => {
      let label = TRUSTED;
      for (let i = 0; i < MAX_LABEL_SOURCES + 4; i++) label = joinLabels(label, untrusted(`t${i}`));
      return label;
    };
    // A session's label joined, run after run, with a run's label built from the same sources.
    let session = build();
    for (let run = 0; run < 1100; run++) session = joinLabels(session, build());
    expect(session.moreSources).toBe(4);
    expect(JSON.parse(JSON.stringify(session)).moreSources).toBe(4);
  });

  it('counts a source past the list once when a label built on it reads it again, and then stops changing', () => {
    // A session's label, and a run of the same sources whose input carries it, again and again.
    const run = (session: Label) => {
      let label = session;
      for (let i = 0; i < MAX_LABEL_SOURCES + 4; i++) label = joinLabels(untrusted(`t${i}`), label);
      return joinLabels(session, label);
    };
    let session = TRUSTED;
    for (let i = 0; i < 50; i++) session = run(session);
    expect(session.moreSources).toBe(4);
    expect(run(session)).toBe(session);
    expect(JSON.parse(JSON.stringify(session))).toEqual({ trusted: false, sources: session.sources, moreSources: 4 });
  });

  it('remembers a bounded number of sources past the list, and estimates past those', () => {
    let label = TRUSTED;
    for (let i = 0; i < MAX_LABEL_SOURCES + 60; i++) label = joinLabels(label, untrusted(`t${i}`));
    expect(label.sources).toHaveLength(MAX_LABEL_SOURCES);
    expect(label.moreSources).toBe(60);
    // The first remembered past the list is counted once; a source past what it remembers may count again.
    expect(joinLabels(label, untrusted(`t${MAX_LABEL_SOURCES}`)).moreSources).toBe(60);
    expect(joinLabels(label, untrusted(`t${MAX_LABEL_SOURCES + 50}`)).moreSources).toBe(61);
  });
});

describe('label trees', () => {
  const list = treeWithParts(sourceLabel('bank', 's', true), ['*.subject'], untrusted('bank'));

  it("reads a part with its container's label joined in", () => {
    expect(flatten(partOf(partOf(list, 0), 'sender')).trusted).toBe(true);
    expect(flatten(partOf(partOf(list, 3), 'subject')).trusted).toBe(false);
    expect(flatten(list).trusted).toBe(false);
    const untrustedList = { own: untrusted('web'), items: [TRUSTED] };
    expect(flatten(partOf(untrustedList, 0)).trusted).toBe(false);
  });

  it('finds a field named by digits whether read by number or by name', () => {
    const tree = { own: TRUSTED, fields: { '0': untrusted('x') } };
    expect(flatten(partOf(tree, 0)).trusted).toBe(false);
    expect(flatten(partOf(tree, '0')).trusted).toBe(false);
  });

  it('joins a label into every part, and reads anything malformed as the fallback, never as trusted', () => {
    expect(flatten(partOf(joinTree(list, untrusted('arg')), 0)).sources.map((s) => s.tool)).toEqual(['bank', 'arg']);
    expect(flatten(readStoredTree({ own: 'yes' }, untrusted('journal'))).trusted).toBe(false);
    expect(readStoredTree(plain(TRUSTED), untrusted('journal'))).toEqual(plain(TRUSTED));
  });
});

describe("sessions' labels", () => {
  it('keeps the join of what each session saw; a forgotten session that saw something stays untrusted', () => {
    const sessions = new SessionLabels(2);
    sessions.mark('a', untrusted('web'));
    sessions.mark('a', TRUSTED);
    expect(sessions.labelOf('a')).toMatchObject({ trusted: false, sources: [{ tool: 'web' }] });
    expect(sessions.labelOf('b')).toBe(TRUSTED);
    sessions.mark('b', untrusted('mail'));
    sessions.mark('c', untrusted('mail'));
    // 'a' is forgotten, never clean again.
    expect(sessions.labelOf('a').trusted).toBe(false);
    expect(sessions.labelOf('never-seen').trusted).toBe(true);
  });

  it('finds a session by its key made afresh at each call, and never takes one session for another asked just before', () => {
    const sessions = new SessionLabels(10);
    const key = (id: string) => ['session', id].join(':');
    sessions.mark(key('a'), untrusted('web'));
    expect(sessions.labelOf(key('a'))).toMatchObject({ trusted: false, sources: [{ tool: 'web' }] });
    expect(sessions.labelOf(key('b'))).toBe(TRUSTED);
    expect(sessions.labelOf(key('a')).trusted).toBe(false);
    sessions.mark(key('b'), untrusted('mail'));
    expect(sessions.labelOf(key('a')).sources.map((s) => s.tool)).toEqual(['web']);
    expect(sessions.labelOf(key('b')).sources.map((s) => s.tool)).toEqual(['mail']);
    sessions.mark(key('a'), untrusted('mail'));
    expect(sessions.labelOf(key('a')).sources.map((s) => s.tool)).toEqual(['web', 'mail']);
  });

  it('forgets the session marked least lately, however often the newest is marked again', () => {
    const sessions = new SessionLabels(2);
    sessions.mark('a', untrusted('web'));
    sessions.mark('b', untrusted('mail'));
    // 'b' marked again, as the newest: still newer than 'a', with both its sources.
    sessions.mark('b', untrusted('web'));
    expect(sessions.labelOf('b').sources.map((s) => s.tool)).toEqual(['mail', 'web']);
    // 'a' marked again becomes the newest, so 'c' pushes 'b' out, not 'a'.
    sessions.mark('a', untrusted('web'));
    sessions.mark('c', untrusted('feed'));
    expect(sessions.labelOf('a').sources.map((s) => s.tool)).toEqual(['web']);
    expect(sessions.labelOf('c').sources.map((s) => s.tool)).toEqual(['feed']);
    expect(sessions.labelOf('b').sources.map((s) => s.tool)).toEqual(['(forgotten session)']);
    // The newest marked again and again stays kept, with what it saw added.
    sessions.mark('c', untrusted('mail'));
    sessions.mark('c', untrusted('mail'));
    expect(sessions.labelOf('c').sources.map((s) => s.tool)).toEqual(['feed', 'mail']);
    expect(sessions.labelOf('a').sources.map((s) => s.tool)).toEqual(['web']);
  });
});
