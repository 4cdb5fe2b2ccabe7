/**
 * The host's snapshot and restore, for a `scope` that rolls back.
 *
 * The host's snapshot and restore pair for a `scope` with `on_failure: 'rollback'`: taken when
 * the scope starts, restored (after every step's own compensation) when it fails.
 *
 * @category Build composites
 */
export interface SnapshotProvider {
  /** Take a snapshot of whatever the host can restore; resolves to a token for {@link SnapshotProvider.restore}. */
  snapshot(): unknown | Promise<unknown>;
  /** Put things back as they were when `token` was taken. A throw or rejection is reported as a failing undo. */
  restore(token: unknown): void | Promise<void>;
}
