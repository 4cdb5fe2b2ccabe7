import { describe, expect, it } from 'vitest';
import { expansions, stem, terms, words } from '../../src/discovery/terms.js';

describe('terms: the words a tool or a query is counted by', () => {
  it('splits names at case changes and punctuation, whatever the naming style', () => {
    expect(words('listDirectoryWithSizes')).toEqual(['list', 'directory', 'with', 'sizes']);
    expect(words('github__create_pull_request')).toEqual(['github', 'create', 'pull', 'request']);
    expect(words('API-retrieve-a-page')).toEqual(['api', 'retrieve', 'a', 'page']);
    expect(words('HTTPRequest, gzip-file-as-resource')).toEqual(['http', 'request', 'gzip', 'file', 'as', 'resource']);
  });

  it('brings word forms to one stem', () => {
    for (const [a, b] of [['files', 'file'], ['create', 'creating'], ['created', 'create'], ['entities', 'entity'], ['listing', 'list'], ['mapped', 'map'], ['screenshots', 'screenshot']]) {
      expect(stem(a), `${a} / ${b}`).toBe(stem(b));
    }
    expect(stem('status')).toBe('status');
    expect(stem('pr')).toBe('pr');
  });

  it('drops the words that name no tool, and spells out short forms', () => {
    expect(terms('open a PR for the repo')).toEqual(['open', 'pull', 'request', 'repo']);
    // Words that are names of Object's own properties are words like any other.
    expect(terms('constructor toString __proto__ hasOwnProperty')).toEqual(['constructor', 'str', 'proto', 'own', 'property']);
  });

  it('widens a query with the words tools use for the same thing, never repeating its own', () => {
    const wide = expansions(terms('make a folder'));
    expect(wide).toEqual(expect.arrayContaining([stem('create'), stem('directory')]));
    expect(wide).not.toContain(stem('folder'));
    expect(expansions(terms('zebra'))).toEqual([]);
  });
});
