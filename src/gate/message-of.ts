/**
 * A printable message from anything thrown. A module of its own, importing nothing, so a sandbox
 * thread can use it without loading the gate.
 */

/** A printable message from anything thrown (never throws itself). */
export function messageOf(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message);
    return String(error);
  } catch {
    return 'unknown error';
  }
}
