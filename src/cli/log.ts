/**
 * The proxy's log: stderr only, since stdout carries the protocol. Errors always; each call and its
 * verdict with `--verbose`.
 */

/** Where the proxy writes what happens. */
export interface Log {
  /** A problem, with its code: always written. */
  error(code: string, message: string): void;
  /** A fact worth a line: always written. */
  info(message: string): void;
  /** A detail: written with `--verbose` only. */
  verbose(message: string): void;
  /** Whether `verbose` writes. */
  readonly isVerbose: boolean;
}

/** A log to `write` (stderr by default). */
export function createLog(options: { verbose?: boolean; write?: (line: string) => void } = {}): Log {
  const write = options.write ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const isVerbose = options.verbose === true;
  return {
    isVerbose,
    error: (code, message) => write(`toolweave: error ${code}: ${message}`),
    info: (message) => write(`toolweave: ${message}`),
    verbose: (message) => {
      if (isVerbose) write(`toolweave: ${message}`);
    },
  };
}

/** The most characters of one line passed on from a server's stderr; a longer one is cut. */
const MAX_LINE_CHARS = 8192;

/**
 * Pass a child's stderr on, each line with `[name] ` in front, so a person reading the proxy's
 * stderr knows which server said it. A line without an end is cut at {@link MAX_LINE_CHARS}.
 */
export function prefixLines(name: string, write: (line: string) => void): (chunk: Buffer | string) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString();
    let end: number;
    while ((end = pending.indexOf('\n')) >= 0) {
      write(`[${name}] ${pending.slice(0, end).replace(/\r$/u, '')}`);
      pending = pending.slice(end + 1);
    }
    if (pending.length > MAX_LINE_CHARS) {
      write(`[${name}] ${pending.slice(0, MAX_LINE_CHARS)}...`);
      pending = '';
    }
  };
}
