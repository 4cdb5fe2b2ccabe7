/**
 * The config's `scripts`: each entry checked against the published schema and for what a schema
 * cannot say (an input schema that compiles and describes an object, a name the proxy's own tools
 * do not hold); every problem names the file and the field, with the code `config_invalid`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/cli/config.js';
import { MAX_SNIPPET_SCRIPT_CHARS } from '../../src/cli/config-schema.js';
import { compositeClashes } from '../../src/cli/snippets.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolweave-config-scripts-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function problemsOf(scripts: unknown): Promise<{ file: string; problems: string[] }> {
  const file = path.join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify({ servers: { fs: { command: 'node' } }, sideEffectingTools: ['write_file'], scripts }));
  try {
    await loadConfig(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('config_invalid');
    return { file, problems: (error as ConfigError).problems };
  }
  return { file, problems: [] };
}

const good = {
  description: 'Count the lines of a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  script: 'const r = await callTool("read_text_file", { path: input.path }); return r.text.split("\\n").length;',
};

describe('config scripts', () => {
  it('reads a script with its schema, side effects and examples', async () => {
    const { problems } = await problemsOf({ count_lines: { ...good, sideEffectingTools: ['write_file'], examples: [{ input: { path: 'a' }, output: 3 }] } });
    expect(problems).toEqual([]);
  });

  it('says which field is wrong: a script that is not a string, a missing schema, an unknown field, a bad name', async () => {
    const { file, problems } = await problemsOf({
      not_text: { ...good, script: ['return 1'] },
      no_schema: { description: 'x', script: 'return 1' },
      extra: { ...good, scirpt: 'return 1' },
      'bad name!': good,
    });
    expect(problems).toEqual(expect.arrayContaining([
      `${file}: scripts.not_text.script: must be string`,
      `${file}: scripts.no_schema: missing field "inputSchema"`,
      `${file}: scripts.extra: unknown field "scirpt"`,
      `${file}: scripts: the name "bad name!" may hold only letters, digits, _ and -`,
    ]));
  });

  it('refuses a script past the size bound', async () => {
    const { file, problems } = await problemsOf({ big: { ...good, script: `return ${'1+'.repeat(MAX_SNIPPET_SCRIPT_CHARS / 2)}1;` } });
    expect(problems).toEqual([`${file}: scripts.big.script: must NOT have more than ${MAX_SNIPPET_SCRIPT_CHARS} characters`]);
  });

  it('refuses an input schema that does not compile or is not an object, and a name of the proxy\'s own tools', async () => {
    const { file, problems } = await problemsOf({
      broken: { ...good, inputSchema: { type: 'object', properties: { n: { type: 'integr' } } } },
      listy: { ...good, inputSchema: { type: 'array' } },
      run_js: good,
    });
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(new RegExp(`^${escape(file)}: scripts\\.broken\\.inputSchema: is not a JSON Schema that can be compiled \\(schema is invalid: data/properties/n/type must be equal to one of the allowed values.*\\); fix the schema$`, 'u'));
    expect(problems[1]).toBe(`${file}: scripts.listy.inputSchema.type: must be "object": a tool's input is an object of named fields (give type: object and properties)`);
    expect(problems[2]).toBe(`${file}: scripts.run_js: the name "run_js" is one of the proxy's own tools (run_pipeline, compose, run_js, get_observation); rename the script`);
  });

  it('finds a script and a composite file that take one name', () => {
    const clashes = compositeClashes({ review: good as never, other: good as never }, [{ name: 'review', description: 'd', inputSchema: {}, spec: {}, file: '/x/review.json' }]);
    expect([...clashes]).toEqual([['review', 'scripts.review: the name is also the composite\'s of /x/review.json; neither is served until one is renamed']]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}
