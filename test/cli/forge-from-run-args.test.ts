/** `toolweave forge --from-run <file or dir> --run <id> --out <dir>`: its command line, and what each missing part says. */
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';

describe('forge --from-run arguments', () => {
  it('reads the recording, the run and the folder, in any order', () => {
    expect(parseArgs(['forge', '--from-run', 'recordings', '--run', 'run-1a2b3c4d-2', '--out', 'forged'])).toEqual({ command: 'forge', recordings: 'recordings', out: 'forged', minSessions: 1, run: 'run-1a2b3c4d-2' });
    expect(parseArgs(['forge', '--out', 'forged', '--run', 'r', '--from-run', 'a.jsonl'])).toMatchObject({ recordings: 'a.jsonl', run: 'r' });
  });

  it('says what is missing', () => {
    expect(() => parseArgs(['forge', '--from-run', 'recordings', '--out', 'forged'])).toThrow(/needs --run <id>/u);
    expect(() => parseArgs(['forge', '--from-run', 'recordings', '--run', 'r'])).toThrow(/needs --out <dir>/u);
    expect(() => parseArgs(['forge', '--from-run', '--run', 'r', '--out', 'x'])).toThrow(/--from-run needs a value/u);
    expect(() => parseArgs(['forge', '--from-run', 'recordings', '--run', 'r', '--out', 'x', '--min-sessions', '2'])).toThrow(/Unknown option "--min-sessions"/u);
  });
});
