/**
 * A run's id and a pause's token: random (or derived from the host's name for the run), opaque to
 * the host, and read back strictly, so nothing but a token this library issued is looked up.
 */
import { createHash, randomBytes } from 'node:crypto';

/** A new run's id: `run_` and 22 characters (128 random bits). */
export function newRunId(): string {
  return `run_${randomBytes(16).toString('base64url')}`;
}

/** The id of the run a host named `name` (see `ToolExecutionContext.runName`): the same for the same name in every process. */
export function runIdOf(name: string): string {
  return `run_${createHash('sha256').update(name).digest('base64url').slice(0, 22)}`;
}

/** The token of pause `pause` of run `runId`: opaque to the host, it also says when it expires. */
export function tokenOf(runId: string, pause: number, expiresAt: number): string {
  return `${runId}.${pause}.${expiresAt.toString(36)}`;
}

/** A token read back: the run, the pause it names and its expiry; `undefined` for anything this library did not issue. */
export function readToken(token: unknown): { runId: string; pause: number; expiresAt: number } | undefined {
  if (typeof token !== 'string' || token.length > 200) return undefined;
  const match = /^(run_[A-Za-z0-9_-]{22})\.(\d{1,9})\.([0-9a-z]{1,12})$/u.exec(token);
  if (!match) return undefined;
  return { runId: match[1], pause: Number(match[2]), expiresAt: parseInt(match[3], 36) };
}

