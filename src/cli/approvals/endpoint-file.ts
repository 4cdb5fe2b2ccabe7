/**
 * Where a proxy in `approvals: queue` mode says where its approvals endpoint is and what its
 * token is: one file per proxy in a folder only its user can open (`~/.toolweave/approvals`, or
 * `TOOLWEAVE_APPROVALS_DIR`), readable by that user alone. `toolweave approvals` reads them; the
 * token is never written to a log or shown to a model.
 */
import { chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** What an endpoint file holds. */
export interface EndpointRecord {
  url: string;
  token: string;
  pid: number;
}

/** The most endpoint files `toolweave approvals` reads. */
const MAX_ENDPOINT_FILES = 64;
/** The most bytes of one endpoint file read. */
const MAX_ENDPOINT_FILE_BYTES = 4096;

/** The folder of the endpoint files. */
export function endpointFolder(env: NodeJS.ProcessEnv = process.env): string {
  return env.TOOLWEAVE_APPROVALS_DIR || path.join(os.homedir(), '.toolweave', 'approvals');
}

/** Write this proxy's endpoint file; returns its path. */
export async function writeEndpointFile(record: EndpointRecord, folder = endpointFolder()): Promise<string> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  // A folder made earlier with wider rights is narrowed: the token must stay the user's.
  await chmod(folder, 0o700);
  const file = path.join(folder, `${record.pid}-${new URL(record.url).port}.json`);
  await writeFile(file, JSON.stringify(record), { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}

/** Remove an endpoint file (the proxy stops); a file already gone is fine. */
export async function removeEndpointFile(file: string): Promise<void> {
  await rm(file, { force: true }).catch(() => undefined);
}

/** The endpoints of the proxies running now, from the folder's files (a file of a process gone is passed over). */
export async function readEndpoints(folder = endpointFolder()): Promise<EndpointRecord[]> {
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => /^\d+-\d+\.json$/u.test(name)).slice(0, MAX_ENDPOINT_FILES);
  } catch {
    return [];
  }
  const records: EndpointRecord[] = [];
  for (const name of names) {
    try {
      const text = await readFile(path.join(folder, name), 'utf8');
      if (text.length > MAX_ENDPOINT_FILE_BYTES) continue;
      const data = JSON.parse(text) as Partial<EndpointRecord>;
      if (typeof data.url !== 'string' || typeof data.token !== 'string' || typeof data.pid !== 'number') continue;
      if (!alive(data.pid)) continue;
      records.push({ url: data.url, token: data.token, pid: data.pid });
    } catch {
      // A file being written or removed meanwhile is passed over.
    }
  }
  return records;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
