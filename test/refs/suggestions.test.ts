/**
 * A misspelt reference names its fix: the closest root for an unknown one, the closest step name
 * for a `$steps.<name>` no step has. A `$` word close to nothing keeps the plain message, and the
 * `$$` escape is never reported.
 */
import { describe, expect, it } from 'vitest';
import { compileMapping } from '../../src/refs/compile.js';
import { site } from './helpers.js';

const lenient = site({ strict: false, allNames: new Set(['fetchUser', 'name', 'later']), namesBefore: new Set(['fetchUser', 'name']) });

describe('a misspelt root', () => {
  it('is a warning in lenient mode naming the closest root, the text kept', () => {
    const c = compileMapping({ a: '$inptu.id', b: '$step[0]', c: '$prv', d: 'Hi ${$Input.name}' }, lenient);
    expect(c.errors).toEqual([]);
    expect(c.warnings).toEqual([
      'step "summarise": "$inptu.id" has an unknown root "$inptu" (did you mean $input?); kept as the literal text (strict mode refuses it)',
      'step "summarise": "$step[0]" has an unknown root "$step" (did you mean $steps?); kept as the literal text (strict mode refuses it)',
      'step "summarise": "$prv" has an unknown root "$prv" (did you mean $prev?); kept as the literal text (strict mode refuses it)',
      'step "summarise": "$Input.name" (in "Hi ${$Input.name}") has an unknown root "$Input" (did you mean $input?); kept as the literal text (strict mode refuses it)',
    ]);
    expect(c.accessor({ input: { id: 1 }, prev: 2, steps: [], named: new Map() })).toEqual({ a: '$inptu.id', b: '$step[0]', c: '$prv', d: 'Hi ${$Input.name}' });
  });

  it('is an error in strict mode, with the same suggestion', () => {
    expect(compileMapping('$step.fetchUser', site()).errors).toEqual(['step "summarise": "$step.fetchUser" has an unknown root "$step" (did you mean $steps?)']);
  });

  it('a $ word close to no root keeps the list of roots; the $$ escape is not reported', () => {
    const c = compileMapping({ a: '$HOME', b: '$$inptu.id', c: '$$HOME' }, lenient);
    expect(c.warnings).toEqual([
      'step "summarise": "$HOME" has an unknown root "$HOME" (expected $input, $prev, $steps, $item or $index); kept as the literal text (strict mode refuses it)',
    ]);
    expect(c.accessor({ input: {}, prev: undefined, steps: [], named: new Map() })).toEqual({ a: '$HOME', b: '$inptu.id', c: '$HOME' });
  });
});

describe('a $steps name no step has', () => {
  it('names the closest step names, in every mode (it can never resolve)', () => {
    const c = compileMapping({ a: '$steps.nme', b: '${$steps.fetchUsr.id}' }, lenient);
    expect(c.warnings).toEqual([]);
    expect(c.errors).toEqual([
      'step "summarise": "$steps.nme" refers to no step named "nme" (did you mean name?)',
      'step "summarise": "$steps.fetchUsr.id" (in "${$steps.fetchUsr.id}") refers to no step named "fetchUsr" (did you mean fetchUser?)',
    ]);
  });

  it('a name close to none is named alone', () => {
    expect(compileMapping('$steps.ghost', lenient).errors).toEqual(['step "summarise": "$steps.ghost" refers to no step named "ghost"']);
  });
});

describe('a $steps name close to several', () => {
  it('names each of them, comma-separated', () => {
    const names = new Set(['fetchUser', 'fetchUsers', 'later']);
    const c = compileMapping('$steps.fetchUsr', { ...lenient, namesBefore: names, allNames: names });
    expect(c.errors).toEqual(['step "summarise": "$steps.fetchUsr" refers to no step named "fetchUsr" (did you mean fetchUser, fetchUsers?)']);
  });
});
