/**
 * The process groups of the servers started over stdio. Each server is started as the leader of a
 * group of its own, so stopping the group stops whatever the server started too: the node a `npx`
 * or a shell script runs, a child it spawned. Signalling the server alone would leave those
 * running with no parent, on every start that failed and at every exit.
 *
 * Every group started is known here until it is seen empty, and is killed when this process
 * exits, however it exits (a normal end, `process.exit`, an uncaught error): a process killed with
 * SIGKILL is the one case nothing here can cover.
 *
 * On Windows there are no process groups to signal: the server alone is stopped.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Whether servers are started as group leaders and stopped by group. */
export const USES_PROCESS_GROUPS = process.platform !== 'win32';

/** How often a group being stopped is looked at, in milliseconds. */
const POLL_MS = 50;
/** How long SIGKILL may take to empty a group before it is given up on, in milliseconds. */
const KILL_WAIT_MS = 1_000;

/** The groups started and not yet seen empty, by their leader's process id. */
const live = new Set<number>();
let hooked = false;

/** Know `pgid` as a group started here, to stop at the latest when this process exits. */
export function trackGroup(pgid: number): void {
  live.add(pgid);
  if (hooked) return;
  hooked = true;
  // 'exit' handlers run synchronously: process.kill is synchronous, so the signals are sent.
  process.once('exit', killEveryGroup);
}

/**
 * Stop group `pgid`: SIGTERM to every process in it, up to `graceMs` for them to exit, then
 * SIGKILL to whatever is left. Resolves once the group is empty (`true`), or after the bounded
 * waits (`false`). A group seen empty is forgotten: its id may be given to another process.
 */
export async function stopGroup(pgid: number, graceMs: number): Promise<boolean> {
  let empty = !groupAlive(pgid);
  if (!empty) {
    signalGroup(pgid, 'SIGTERM');
    empty = await emptied(pgid, graceMs);
  }
  if (!empty) {
    signalGroup(pgid, 'SIGKILL');
    empty = await emptied(pgid, KILL_WAIT_MS);
  }
  if (empty) live.delete(pgid);
  return empty;
}

/** {@link stopGroup} for every group started here and not yet seen empty, at once. */
export async function stopEveryGroup(graceMs: number): Promise<void> {
  await Promise.all([...live].map((pgid) => stopGroup(pgid, graceMs)));
}

/** SIGKILL to every group started here and not yet seen empty. */
function killEveryGroup(): void {
  for (const pgid of live) signalGroup(pgid, 'SIGKILL');
  live.clear();
}

/**
 * Whether any process of group `pgid` is still running. A zombie (a process that has exited and
 * waits for its parent to read its status) is not running, and an orphan's status is read by
 * init when it gets to it, so on Linux the processes are read from /proc and zombies left out;
 * elsewhere a zombie counts until it is gone.
 */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    // EPERM: a process is there, one of another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return process.platform === 'linux' ? runningMembers(pgid) > 0 : true;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already empty.
  }
}

/** Wait up to `ms` for the group to empty; whether it did. */
async function emptied(pgid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!groupAlive(pgid)) return true;
  }
  return !groupAlive(pgid);
}

/** The processes of group `pgid` that are not zombies, read from /proc. */
function runningMembers(pgid: number): number {
  let count = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 1;
  }
  for (const entry of entries) {
    if (!/^\d+$/u.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ")".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') count++;
  }
  return count;
}
