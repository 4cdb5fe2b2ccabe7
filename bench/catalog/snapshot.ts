/**
 * The committed snapshot of the nine-server catalog (test/fixtures/catalog.json, written by
 * bench/catalog/make-snapshot.ts), as the tools a proxy over those servers serves: prefixed names
 * where the config prefixes, each tool's server as its group.
 */
import { readFileSync } from 'node:fs';
import type { CatalogSnapshot } from './list.js';

/** Where the snapshot is kept. */
export const SNAPSHOT_URL = new URL('../../test/fixtures/catalog.json', import.meta.url);

/** One tool of the catalog as served. */
export interface CatalogTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  group: string;
}

/** The snapshot as committed. */
export function readSnapshot(): CatalogSnapshot {
  return JSON.parse(readFileSync(SNAPSHOT_URL, 'utf8')) as CatalogSnapshot;
}

/** The snapshot's tools as served, in config order. */
export function servedCatalog(snapshot: CatalogSnapshot = readSnapshot()): CatalogTool[] {
  return snapshot.servers.flatMap((server) =>
    server.tools.map((tool) => ({
      name: server.prefix ? `${server.name}__${tool.name}` : tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema as Record<string, unknown>,
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Record<string, unknown> } : {}),
      group: server.name,
    })),
  );
}
