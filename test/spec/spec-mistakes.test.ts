/**
 * Mistakes in a spec that can never work, as the builder reports them in either mode: a `$steps`
 * reference to a step that does not exist (told apart from one that has not run yet), a template
 * part that is never closed, a composite without a name.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder, SpecError } from '../../src/builder.js';
import type { ComposableToolSpec } from '../../src/spec/types.js';
import { registry, tool } from '../helpers/tools.js';

function builders() {
  const lookup = tool('lookup', (a) => ({ name: `user-${String(a.id)}` }));
  const greet = tool('greet', (a) => `hello ${String(a.name)}`);
  const reg = registry(lookup, greet);
  const warnings: string[] = [];
  return {
    lenient: new ComposableToolBuilder(reg.gate(), { onWarning: (w) => warnings.push(w) }),
    strict: new ComposableToolBuilder(reg.gate(), { strictMode: true }),
    warnings,
  };
}

/** Two steps; the second greets with `name`. */
const twoSteps = (name: string): ComposableToolSpec => ({
  steps: [
    { name: 'user', tool: 'lookup', inputMapping: { id: '$input.id' } },
    { tool: 'greet', inputMapping: { name } },
  ],
});

/** What build throws for `spec` under `name`: the SpecError's errors. */
function buildErrors(builder: ComposableToolBuilder, spec: ComposableToolSpec, name = 'greet_user'): string[] {
  try {
    builder.build(name, 'Greet a user.', { type: 'object' }, spec);
  } catch (error) {
    expect(error).toBeInstanceOf(SpecError);
    return (error as SpecError).errors;
  }
  return [];
}

describe('a $steps reference to a step that does not exist', () => {
  it('says there is no such step, with how many there are, in strict and lenient mode alike', () => {
    const { lenient, strict } = builders();
    for (const builder of [lenient, strict]) {
      expect(buildErrors(builder, twoSteps('$steps[99].name'))).toEqual(['step "steps[1]": "$steps[99].name" refers to no step at position 99 (the spec has 2 steps, $steps[0] to $steps[1])']);
      expect(buildErrors(builder, twoSteps('${$steps[2].name}!'))).toEqual(['step "steps[1]": "$steps[2].name" (in "${$steps[2].name}!") refers to no step at position 2 (the spec has 2 steps, $steps[0] to $steps[1])']);
    }
  });

  it('still says "has not run yet" for a step that exists later', () => {
    const { lenient } = builders();
    expect(buildErrors(lenient, twoSteps('$steps[1].name'))).toEqual(['step "steps[1]": "$steps[1].name" refers to a step that has not run yet']);
  });
});

describe('an unclosed template part', () => {
  it('is refused in strict mode, naming the part and the missing brace', () => {
    const { strict } = builders();
    expect(buildErrors(strict, twoSteps('Dear ${$input.x'))).toEqual(['step "steps[1]": "${$input.x" (in "Dear ${$input.x") has no closing "}"']);
  });

  it('is a warning in lenient mode, and the text is kept as written', async () => {
    const { lenient, warnings } = builders();
    const greetUser = lenient.build('greet_user', 'Greet a user.', { type: 'object' }, twoSteps('Dear ${$input.x'));
    expect(warnings).toEqual(['step "steps[1]": "${$input.x" (in "Dear ${$input.x") has no closing "}"; kept as the literal text (strict mode refuses it)']);
    expect(await greetUser.execute({ id: 1, x: 'Ann' }, {})).toMatchObject({ success: true, output: 'hello Dear ${$input.x' });
  });

  it('leaves a closed part and a ${ that opens no reference alone', () => {
    const { strict } = builders();
    expect(buildErrors(strict, twoSteps('Dear ${$input.x}'))).toEqual([]);
    expect(buildErrors(strict, twoSteps('cost: ${HOME'))).toEqual([]);
  });
});

describe('a composite without a name', () => {
  it('is refused at build, in either mode', () => {
    const { lenient, strict } = builders();
    for (const builder of [lenient, strict]) {
      for (const name of ['', '  ']) expect(buildErrors(builder, twoSteps('$steps.user.name'), name)).toEqual(['the composite\'s name must not be empty']);
      expect(builder.validate(twoSteps('$steps.user.name'), { name: '' }).errors).toEqual(['the composite\'s name must not be empty']);
    }
  });
});

describe("the guide's account of lenient mode", () => {
  const guide = readFileSync(fileURLToPath(new URL('../../docs/guide.md', import.meta.url)), 'utf8');
  const strictMode = guide.slice(guide.indexOf('**Strict mode.**'), guide.indexOf('**Data is never code.**'));

  it('says that a $steps reference that cannot point backwards is refused in every mode, not read as undefined', () => {
    expect(strictMode).not.toMatch(/forward reference reads\s+`?undefined/u);
    expect(strictMode).toMatch(/`\$steps` reference to a step that has not run yet or does not exist is refused in\s+every mode/u);
  });
});
