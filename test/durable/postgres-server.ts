/**
 * A real Postgres cluster for tests: made with initdb in a temporary folder, started on a free
 * loopback port (its socket in the same folder), and stopped and removed by whoever started it.
 * Debian's binaries live under /usr/lib/postgresql/<version>/bin, off the PATH; they are found
 * there. Postgres refuses to run as root, so as root the cluster belongs to the `postgres` user
 * (Debian's package makes it), or `nobody`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/free-port.js';

/** A running Postgres cluster this process started. */
export interface PostgresServer {
  /** Its port on 127.0.0.1. */
  port: number;
  /** A connection URL for database `database` as the superuser `postgres` (trust authentication). */
  url(database: string): string;
  /** Stop it (fast shutdown) and remove its folder. */
  stop(): void;
}

/** How long the cluster may take to start or stop. */
const START_STOP_S = 30;

/** The folder holding initdb and pg_ctl: on the PATH, else Debian's newest version. */
export function postgresBin(): string {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  // A link on the PATH (to Debian's folder) is followed: pg_isready may be only there.
  if (onPath.status === 0 && onPath.stdout.trim() !== '') return path.dirname(realpathSync(onPath.stdout.trim()));
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('Postgres is not installed (no initdb on the PATH or under /usr/lib/postgresql/*/bin): apt-get install -y postgresql (.ci/run installs it)');
  return path.join(root, versions[0], 'bin');
}

/** The user the cluster runs as: this one, unless it is root. */
function clusterUser(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    if (spawnSync('id', ['-u', name], { stdio: 'ignore' }).status === 0) return name;
  }
  throw new Error('Running as root, and neither the postgres nor the nobody user exists to run Postgres as.');
}

/** Run a Postgres binary (as the cluster's user when this is root); throws with its output when it fails. */
function runBin(user: string | undefined, bin: string, args: string[]): void {
  const [command, full] = user === undefined ? [bin, args] : ['runuser', ['-u', user, '--', bin, ...args]];
  try {
    execFileSync(command, full, { stdio: 'pipe', timeout: (START_STOP_S + 5) * 1000, cwd: tmpdir() });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`${path.basename(bin)} ${args.join(' ')} failed:\n${stderr?.toString() ?? ''}${stdout?.toString() ?? ''}`);
  }
}

/** Make a cluster, start it on a free port and wait until it accepts connections. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin();
  const user = clusterUser();
  const dir = mkdtempSync(path.join(tmpdir(), 'toolweave-pg-'));
  const data = path.join(dir, 'data');
  if (user !== undefined) {
    const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const port = await freePort();
  try {
    runBin(user, path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
    runBin(user, path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'log'), '-o', options, '-w', '-t', String(START_STOP_S), 'start']);
    runBin(user, path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-t', String(START_STOP_S)]);
  } catch (error) {
    // A server that started but did not answer is stopped before its folder goes.
    if (existsSync(path.join(data, 'postmaster.pid'))) {
      try {
        runBin(user, path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Reported below with the first failure.
      }
    }
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Postgres could not be started for the tests: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    port,
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    stop() {
      try {
        runBin(user, path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', '-t', String(START_STOP_S), 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
