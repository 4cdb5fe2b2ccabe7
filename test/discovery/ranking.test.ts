import { describe, expect, it } from 'vitest';
import { buildToolIndex, MAX_SEARCH_LIMIT, type RankedToolSource } from '../../src/index.js';
import { hitRate, NEEDS } from '../../bench/catalog/needs.js';
import { servedCatalog } from '../../bench/catalog/snapshot.js';

const tool = (name: string, description: string, properties: Record<string, unknown> = {}, group?: string): RankedToolSource => ({
  name,
  description,
  inputSchema: { type: 'object', properties },
  ...(group ? { group } : {}),
});

describe('the ranking over the nine-server catalog', () => {
  const index = buildToolIndex(servedCatalog());

  it(`puts a right tool in the top 3 for at least 90% of ${NEEDS.length} needs written against it`, () => {
    const { hits, total, misses } = hitRate((query, limit) => index.search(query, limit));
    const rate = hits / total;
    console.log(`ranking: ${hits}/${total} needs (${(rate * 100).toFixed(1)}%) have a right tool in the top 3${misses.map((m) => `\n  missed: "${m.need}" -> ${m.found.join(', ')} (wanted ${m.wanted.join(' or ')})`).join('')}`);
    expect(NEEDS.length).toBeGreaterThanOrEqual(30);
    expect(rate).toBeGreaterThanOrEqual(0.9);
  });

  it('answers a query in well under 5 ms', () => {
    const times: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (const need of NEEDS) {
        const started = performance.now();
        index.search(need.need, 5);
        times.push(performance.now() - started);
      }
    }
    times.sort((a, b) => a - b);
    expect(times[Math.floor(times.length / 2)]).toBeLessThan(5);
  });
});

describe('the ranking', () => {
  it('counts a word in the name above the same word in a description or an argument', () => {
    const index = buildToolIndex([
      tool('send_email', 'Deliver a message.', { subject: { type: 'string', description: 'The line shown in the inbox' } }),
      tool('archive_thread', 'Archive a thread, e.g. after you email its owner.'),
      tool('set_status', 'Set the status.', { email: { type: 'string' } }),
    ]);
    expect(index.search('email').map((hit) => hit.name)).toEqual(['send_email', 'set_status', 'archive_thread']);
  });

  it('weighs rare words over common ones (BM25), so the distinguishing word decides', () => {
    const index = buildToolIndex([
      tool('get_page', 'Get a page.'),
      tool('get_user', 'Get a user.'),
      tool('get_comment', 'Get a comment.'),
      tool('get_block', 'Get a block.'),
    ]);
    expect(index.search('get a user')[0].name).toBe('get_user');
    expect(index.search('get a user')[0].score).toBeGreaterThan(index.search('get a user')[1].score * 2);
  });

  it('reads the group: the server a tool comes from tells two tools of one name apart', () => {
    const index = buildToolIndex([tool('github__create_issue', 'Create an issue.', {}, 'github'), tool('gitlab__create_issue', 'Create an issue.', {}, 'gitlab')]);
    expect(index.search('create an issue on gitlab')[0].name).toBe('gitlab__create_issue');
  });

  it('puts the tool whose exact name is asked for first, in any naming style', () => {
    const index = buildToolIndex([tool('list_directory', 'List the entries of a directory.'), tool('directory_tree', 'A tree of a directory, listing every entry, list by list.')]);
    expect(index.search('list_directory')[0].name).toBe('list_directory');
    expect(index.search('listDirectory')[0].name).toBe('list_directory');
  });

  it('finds nothing for words no tool has, and bounds the limit', () => {
    const tools = Array.from({ length: 80 }, (_, i) => tool(`tool_${i}`, 'Does a thing.'));
    const index = buildToolIndex(tools);
    expect(index.search('zebra crossing')).toEqual([]);
    expect(index.search('')).toEqual([]);
    expect(index.search('thing')).toHaveLength(5);
    expect(index.search('thing', 1000)).toHaveLength(MAX_SEARCH_LIMIT);
    expect(index.search('thing', 0)).toHaveLength(1);
    expect(index.search('thing', Number.NaN)).toHaveLength(5);
  });

  it('orders ties by name, so the same query always gives the same answer', () => {
    const index = buildToolIndex([tool('b_tool', 'Same words.'), tool('a_tool', 'Same words.')]);
    expect(index.search('same words').map((hit) => hit.name)).toEqual(['a_tool', 'b_tool']);
  });
});
