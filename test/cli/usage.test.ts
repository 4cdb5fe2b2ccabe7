/**
 * How the bin answers a person who asks for help or gives no command: `--help` after a command
 * prints the usage and succeeds; no command at all prints the usage to stderr and fails, so a
 * script that forgot the command does not pass for one that ran.
 */
import { describe, expect, it } from 'vitest';
import { runBin } from './proxy-process.js';

const USAGE_LINE = 'toolweave mcp [options] [--] <command> [args...]';

describe('toolweave usage', () => {
  it('with no command, prints the usage to stderr and exits non-zero', async () => {
    const run = await runBin([]);
    expect(run.stderr).toContain(USAGE_LINE);
    expect(run.stderr).toMatch(/^toolweave: Give a command/u);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(2);
  });

  it('mcp --help (and check -h) prints the usage, with no "Unknown option", and exits 0', async () => {
    for (const args of [['mcp', '--help'], ['mcp', '--trust-annotations', '-h'], ['check', '--help']]) {
      const run = await runBin(args);
      expect(run.stdout, args.join(' ')).toContain(USAGE_LINE);
      expect(run.stderr, args.join(' ')).not.toMatch(/Unknown option/u);
      expect(run.code, args.join(' ')).toBe(0);
    }
  });

  it('leaves a --help after the server command to the server', async () => {
    // The server's own --help: the proxy tries to start "no-such-server-toolweave" and says it cannot.
    const run = await runBin(['mcp', '--', 'no-such-server-toolweave', '--help'], undefined, {});
    expect(run.stdout).not.toContain(USAGE_LINE);
  }, 30_000);
});
