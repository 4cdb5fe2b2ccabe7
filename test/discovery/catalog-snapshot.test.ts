/**
 * test/fixtures/catalog.json, which the ranking and declaration tests read, is what the installed
 * servers list: the nine real servers are started (at once, each in a folder of its own) and asked.
 * After upgrading one, `npm run fixtures:catalog` writes the snapshot again.
 */
import { describe, expect, it } from 'vitest';
import { listCatalog } from '../../bench/catalog/list.js';
import { CATALOG_SERVERS, installedVersion } from '../../bench/catalog/servers.js';
import { readSnapshot } from '../../bench/catalog/snapshot.js';

describe('the catalog snapshot', () => {
  it('is what the nine installed servers list now', async () => {
    const snapshot = readSnapshot();
    // The versions first: a mismatch there says which package moved.
    expect(snapshot.servers.map((s) => `${s.package}@${s.version}`)).toEqual(CATALOG_SERVERS.map((s) => `${s.package}@${installedVersion(s.package)}`));
    const listed = await listCatalog(60_000);
    expect(JSON.parse(JSON.stringify(listed))).toEqual(snapshot);
    expect(listed.servers.reduce((sum, s) => sum + s.tools.length, 0)).toBe(160);
  }, 120_000);
});
