/**
 * The label of each session: the join of everything untrusted a door has handed back to the model
 * in it. Only sessions that saw something are kept, at most `max`, the oldest forgotten first. A
 * forgotten session must not read as clean again: its key is set in a bit set of fixed size, and a
 * session not kept whose bits are all set reads as untrusted (a rare clean session that shares the
 * bits reads as untrusted too, which only asks more).
 */
import { createHash } from 'node:crypto';
import { joinLabels, sourceLabel, TRUSTED, type Label } from './label.js';

/** Bits in the set of forgotten sessions: 2^20 (128 KiB), checked at three places each. */
const BITS = 1 << 20;

/** The labels of a gate's sessions. */
export class SessionLabels {
  private readonly labels = new Map<string, Label>();
  private readonly forgotten = new Uint8Array(BITS / 8);
  /** Whether any session was forgotten yet: until then, a session not kept is clean, and no key is hashed. */
  private forgot = false;

  /** @param max - the most sessions kept */
  constructor(private readonly max: number) {}

  /**
   * The key asked last. A scope is usually made afresh at each call (`session:` and an id), and a
   * new string is hashed again at every lookup: the one asked last, equal, is looked up instead,
   * whose hash is known.
   */
  private lastScope = '';

  /** The session marked last: the newest key of {@link SessionLabels.labels}, as only `mark` adds keys. */
  private newest: string | undefined = undefined;

  /** `scope`, or the equal string asked last. */
  private keyOf(scope: string): string {
    if (scope === this.lastScope) return this.lastScope;
    this.lastScope = scope;
    return scope;
  }

  /** The label of session `scope`: trusted until a door hands it something untrusted. */
  labelOf(scope: string): Label {
    scope = this.keyOf(scope);
    const label = this.labels.get(scope);
    if (label !== undefined) return label;
    return this.wasForgotten(scope) ? FORGOTTEN : TRUSTED;
  }

  /** Session `scope` was handed data labelled `label`. */
  mark(scope: string, label: Label): void {
    if (label.trusted && label.readers === undefined) return;
    scope = this.keyOf(scope);
    const kept = this.labels.get(scope);
    const joined = joinLabels(kept ?? (this.wasForgotten(scope) ? FORGOTTEN : TRUSTED), label);
    // The session marked last is already the newest: its value is replaced in place. Moving it
    // (a delete and a set) would leave a hole in the map's table at every mark, and an old map's
    // table is rebuilt in the old generation when full: a garbage table every few runs, which
    // brought on full collections (measured).
    if (kept !== undefined && scope === this.newest) {
      if (joined !== kept) this.labels.set(scope, joined);
      return;
    }
    this.labels.delete(scope);
    this.labels.set(scope, joined);
    this.newest = scope;
    while (this.labels.size > this.max) {
      const oldest = this.labels.keys().next().value as string;
      this.labels.delete(oldest);
      this.forgot = true;
      for (const bit of bitsOf(oldest)) this.forgotten[bit >> 3] |= 1 << (bit & 7);
    }
  }

  private wasForgotten(scope: string): boolean {
    return this.forgot && bitsOf(scope).every((bit) => (this.forgotten[bit >> 3] & (1 << (bit & 7))) !== 0);
  }
}

/**
 * What a forgotten session reads as: untrusted, and readable by no one, since who may read what it
 * saw is forgotten too (a session that read a secret must not, once pushed out, send it anywhere).
 */
const FORGOTTEN: Label = sourceLabel('(forgotten session)', 'earlier', false, []);

function bitsOf(scope: string): number[] {
  const digest = createHash('sha256').update(scope).digest();
  return [digest.readUInt32BE(0) % BITS, digest.readUInt32BE(4) % BITS, digest.readUInt32BE(8) % BITS];
}
