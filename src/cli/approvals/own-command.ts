/**
 * The command a person runs to answer queued approvals: this very bin by its absolute path, with
 * the Node that runs it. Never `npx toolweave`: where toolweave is not installed in the person's
 * folder, npx would look the name up on the package registry, and run whatever it found there.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `toolweave` command that runs this bin, quoted for a POSIX shell (`'/usr/bin/node' '/abs/dist/cli/toolweave.js'`). */
export function ownCommand(): string {
  const here = fileURLToPath(import.meta.url);
  const extension = path.extname(here);
  const bin = path.join(path.dirname(here), '..', `toolweave${extension}`);
  // Run from its TypeScript source, the bin needs the loader this process was started with.
  const loader = extension === '.ts' ? process.execArgv : [];
  return [process.execPath, ...loader, bin].map(quoted).join(' ');
}

const QUOTE = "'";
const ESCAPED_QUOTE = "'\\''";

/** A word as a POSIX shell reads it back: bare when it holds nothing the shell treats specially. */
function quoted(word: string): string {
  if (/^[\w@%+=:,./-]+$/u.test(word)) return word;
  // In single quotes nothing is special; a quote in the word closes them, is escaped, and opens them again.
  return QUOTE + word.split(QUOTE).join(ESCAPED_QUOTE) + QUOTE;
}
