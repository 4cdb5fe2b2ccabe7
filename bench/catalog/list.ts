/**
 * Start the nine catalog servers (bench/catalog/servers.ts), each in a temporary folder of its own,
 * and read what each lists: the catalog as a client sees it, server by server.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { CATALOG_SERVERS, installedVersion, launchOf, type CatalogServer } from './servers.js';

/** What one server lists. */
export interface ListedServer {
  name: string;
  package: string;
  version: string;
  prefix: boolean;
  tools: Tool[];
}

/** The catalog: every server's listing, in config order. */
export interface CatalogSnapshot {
  servers: ListedServer[];
}

/** The most pages of tools/list read from one server. */
const MAX_PAGES = 20;

/** One catalog server started, its client connected. */
export interface StartedServer {
  server: CatalogServer;
  client: Client;
}

/** Start `server` in its own folder under `root` and connect a client; rejects, naming it, when it does not start in time. */
export async function startServer(server: CatalogServer, root: string, timeoutMs: number): Promise<StartedServer> {
  const dir = path.join(root, server.name);
  await mkdir(dir, { recursive: true });
  const launch = launchOf(server, dir);
  const client = new Client({ name: 'toolweave-catalog', version: '1.0.0' });
  const transport = new StdioClientTransport({ ...launch, env: { ...getDefaultEnvironment(), ...launch.env }, cwd: dir, stderr: 'ignore' });
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new Error(`server "${server.name}" (${server.package}) did not start: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { server, client };
}

/** Read one server's tools; rejects (naming the server) when it does not start or list within `timeoutMs`. */
async function listServer(server: CatalogServer, root: string, timeoutMs: number): Promise<ListedServer> {
  const { client } = await startServer(server, root, timeoutMs);
  try {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: timeoutMs });
      tools.push(...answer.tools);
      cursor = answer.nextCursor;
      if (cursor === undefined) break;
    }
    return { name: server.name, package: server.package, version: installedVersion(server.package), prefix: server.prefix, tools };
  } catch (error) {
    throw new Error(`server "${server.name}" (${server.package}) could not be listed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Start every server at once in a temporary folder, list them, stop them, remove the folder. */
export async function listCatalog(timeoutMs = 60_000): Promise<CatalogSnapshot> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'toolweave-catalog-'));
  try {
    const servers = await Promise.all(CATALOG_SERVERS.map((server) => listServer(server, root, timeoutMs)));
    return { servers };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
