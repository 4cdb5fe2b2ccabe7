/**
 * "Did you mean ...?" for a name that resolves to nothing: which registered names are offered,
 * in which order, and how the refusal says it.
 */
import { describe, expect, it } from 'vitest';
import { callByName } from '../../src/gate/call.js';
import { closestNames, didYouMean } from '../../src/gate/suggest.js';
import { registry, tool } from '../helpers/tools.js';

describe('the names offered', () => {
  it('allow up to two edits for a short name, and a third of the length for a long one', () => {
    // 'abcdef' (6): two edits. One more is too many.
    expect(closestNames('abcdef', ['abcdxy', 'abcxyz'])).toEqual(['abcdxy']);
    // 'read_file_now' (13): four edits.
    expect(closestNames('read_file_now', ['rxad_fxle_nxx', 'rxad_fxlx_nxx'])).toEqual(['rxad_fxle_nxx']);
    // 'read_files' (10): three edits.
    expect(closestNames('read_files', ['rxad_fxlxs', 'rxad_fxlxx'])).toEqual(['rxad_fxlxs']);
  });

  it('count a name longer or shorter by exactly the limit, and no more', () => {
    expect(closestNames('abcdef', ['abcdefgh', 'abcdefghi', 'abcd', 'abc'])).toEqual(['abcd', 'abcdefgh']);
  });

  it('count a swap of two neighbours as one edit', () => {
    expect(closestNames('abcd', ['badc'])).toEqual(['badc']);
    expect(closestNames('lookup_user', ['lokoup_user'])).toEqual(['lokoup_user']);
    expect(closestNames('abcdef', ['bacdfe', 'badcfe'])).toEqual(['bacdfe']);
    expect(closestNames('ab', ['ba'])).toEqual(['ba']);
  });

  it('offer nothing that is not close, however the letters are shuffled', () => {
    expect(closestNames('abcd', ['wxyz', 'dcba', 'cdab', 'bdca'])).toEqual([]);
    expect(closestNames('abcdef', ['fedcba', 'abfedc'])).toEqual([]);
    // Only a true swap counts as one edit: a letter merely moved one place is two.
    expect(closestNames('abcdef', ['xacdeb'])).toEqual([]);
    expect(closestNames('read', ['write', 'delete'])).toEqual([]);
  });

  it('never offer the name itself, and ignore case when comparing', () => {
    expect(closestNames('read', ['read', 'reed'])).toEqual(['reed']);
    expect(closestNames('Read_File', ['read_file', 'READ_FILES'])).toEqual(['read_file', 'READ_FILES']);
  });

  it('closest first, ties in name order, at most three', () => {
    const known = ['lookup_users', 'zookup_user', 'lookup_usr', 'lokup_user', 'look_user', 'lookup_uesr', 'lookup'];
    // One edit: lokup_user, lookup_uesr (a swap), lookup_users, lookup_usr, zookup_user; two: look_user.
    expect(closestNames('lookup_user', known)).toEqual(['lokup_user', 'lookup_uesr', 'lookup_users']);
    expect(closestNames('lookup_user', ['look_user', 'zookup_user'])).toEqual(['zookup_user', 'look_user']);
    expect(closestNames('lookup_user', ['look_user', 'lookup_users', 'lokup_usr'])).toEqual(['lookup_users', 'lokup_usr', 'look_user']);
  });

  it('measure the whole of both names, the last letters included', () => {
    expect(closestNames('abcdefgh', ['abcdefxy', 'abcdexyz'])).toEqual(['abcdefxy']);
    expect(closestNames('abc', ['abcde', 'abxyz'])).toEqual(['abcde']);
    expect(closestNames('abcdefghijkl', ['abcdefghxxxx', 'abcdefghijxx'])).toEqual(['abcdefghijxx', 'abcdefghxxxx']);
  });
});

describe('how a refusal says it', () => {
  it('lists the suggestions after the name', () => {
    expect(didYouMean('raed', ['read', 'reed', 'write'])).toBe('; did you mean read, reed?');
    expect(didYouMean('raed', ['write'])).toBe('');
    expect(didYouMean('raed', undefined)).toBe('');
  });

  it('a missing tool names the registered ones closest to it', async () => {
    const reg = registry(tool('read_file', () => 'x'), tool('read_files', () => 'x'), tool('write_file', () => 'x'));
    const { result } = await callByName(reg.gate(), 'read_fil', {}, {});
    expect(result.details?.code).toBe('step_missing');
    expect(result.error).toContain('No tool named "read_fil" is registered; did you mean read_file, read_files?');
    const far = await callByName(reg.gate(), 'delete_everything', {}, {});
    expect(far.result.error).toBe('No tool named "delete_everything" is registered.');
  });
});

describe('the step_missing message', () => {
  it('ends with the question, or with a full stop when nothing is close', async () => {
    const { checkChainable } = await import('../../src/gate/stages/chainable.js');
    const names = () => ['read', 'write'];
    const close = checkChainable('raed', undefined, [], names);
    const far = checkChainable('zzzzzz', undefined, [], names);
    expect(!close.ok && close.refusal.error).toBe('No tool named "raed" is registered; did you mean read?');
    expect(!far.ok && far.refusal.error).toBe('No tool named "zzzzzz" is registered.');
  });
});
