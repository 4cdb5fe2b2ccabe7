/**
 * Write test/fixtures/catalog.json: what the nine catalog servers list, as installed. The unit tests
 * rank and render over this snapshot instead of starting nine servers; test/discovery/catalog-snapshot
 * checks that it still matches what the installed servers list. Run it after upgrading a server:
 *
 *     npm run fixtures:catalog
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { listCatalog } from './list.js';

/** Where the snapshot is kept. */
export const SNAPSHOT_FILE = fileURLToPath(new URL('../../test/fixtures/catalog.json', import.meta.url));

const snapshot = await listCatalog();
await writeFile(SNAPSHOT_FILE, `${JSON.stringify(snapshot, null, 2)}\n`);
const count = snapshot.servers.reduce((sum, server) => sum + server.tools.length, 0);
console.log(`${SNAPSHOT_FILE}: ${snapshot.servers.length} servers, ${count} tools`);
for (const server of snapshot.servers) console.log(`  ${server.name} (${server.package} ${server.version}): ${server.tools.length}`);
