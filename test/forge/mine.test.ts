/**
 * mineChains and generalizeChain: a chain seen in enough sessions is found, one seen in fewer is
 * not; its constants that vary become inputs, its copies references, one call per item a for_each;
 * and the forged spec runs (dry) to its example's output.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder, createStepGate, generalizeChain, mineChains, type ITool, type RecordedSession } from '../../src/index.js';
import { call, session } from './records.js';

/** read a file, then write its text elsewhere: the write is side-effecting. */
function copyChain(from: string, to: string) {
  return [call('read_text_file', { path: from }, `text of ${from}`), call('write_file', { path: to, content: `text of ${from}` }, `Successfully wrote to ${to}`)];
}

/** list a folder, then read each file it lists. */
function readAll(dir: string, names: string[]) {
  const files = names.map((name) => ({ path: `${dir}/${name}` }));
  return [call('list_files', { dir, depth: 1 }, { files }), ...files.map((file) => call('read_text_file', { path: file.path }, `text of ${file.path}`))];
}

function noise(n: number) {
  return [call('get_time', { zone: `zone-${n}` }, `12:0${n}`), call('read_text_file', { path: `/noise/${n}.txt` }, `noise ${n}`)];
}

function sessions(): RecordedSession[] {
  return [
    session('s1.jsonl', [...noise(1), ...copyChain('/p/a.md', '/p/a.bak'), ...noise(2), ...readAll('/p/src', ['x.ts', 'y.ts']), ...noise(3)]),
    session('s2.jsonl', [...readAll('/p/lib', ['m.ts', 'n.ts', 'o.ts']), ...noise(4), ...copyChain('/p/b.md', '/p/b.bak')]),
    session('s3.jsonl', [...noise(5), ...copyChain('/p/c.md', '/p/c.bak'), ...noise(6)]),
    session('s4.jsonl', [...noise(7), ...noise(8)]),
  ];
}

describe('mineChains', () => {
  it('finds a chain seen in 3 sessions and leaves out one seen in 2, and noise', () => {
    const shapes = mineChains(sessions());
    expect(shapes.map((s) => [s.steps.map((step) => step.tool), s.sessions])).toEqual([[['read_text_file', 'write_file'], 3]]);
    expect(shapes[0].signature).toBe('read_text_file(.path=C) > write_file(.content=#0,.path=C)');
    // The list-then-read-each chain is in 2 sessions: found when 2 are enough.
    const atTwo = mineChains(sessions(), { minSessions: 2 });
    expect(atTwo.map((s) => [s.steps.map((step) => step.tool), s.sessions])).toEqual([[['read_text_file', 'write_file'], 3], [['list_files', 'read_text_file'], 2]]);
  });

  it('does not forge a chain seen in 2 sessions at the default threshold', () => {
    const two = sessions().slice(0, 2);
    expect(mineChains(two)).toEqual([]);
    expect(mineChains(two, { minSessions: 2 }).map((s) => s.sessions)).toEqual([2, 2]);
  });

  it('keeps apart chains whose arguments are built differently', () => {
    const differently = [0, 1, 2].map((i) => session(`d${i}.jsonl`, [call('read_text_file', { path: `/p/${i}` }, `t${i}`), call('write_file', { path: `/p/${i}.out`, content: 'fixed text' }, 'ok')]));
    // No copy links the write to the read: no chain at all.
    expect(mineChains(differently)).toEqual([]);
  });
});

describe('generalizeChain', () => {
  it('makes varying constants inputs with an inferred schema, copies references, and lists the side-effecting step', () => {
    const [shape] = mineChains(sessions());
    const forged = generalizeChain(shape);
    expect(forged.name).toBe('read_text_file_then_write_file');
    expect(forged.spec).toEqual({
      steps: [
        { name: 'read_text_file', tool: 'read_text_file', inputMapping: { path: '$input.path' } },
        { name: 'write_file', tool: 'write_file', inputMapping: { content: '$steps.read_text_file', path: '$input.path_2' } },
      ],
    });
    expect(forged.inputSchema).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', examples: ['/p/a.md', '/p/b.md', '/p/c.md'] },
        path_2: { type: 'string', examples: ['/p/a.bak', '/p/b.bak', '/p/c.bak'] },
      },
      required: ['path', 'path_2'],
      additionalProperties: false,
    });
    expect(forged.sideEffectingSteps).toEqual(['write_file']);
    expect(forged.description).toBe('Calls read_text_file, then write_file. Forged from the chain seen in 3 recorded sessions. Side effects: write_file (step write_file).');
    expect(forged.examples[0]).toEqual({
      name: 'recorded 2026-12-02T10:00:00.000Z in s1.jsonl',
      input: { path: '/p/a.md', path_2: '/p/a.bak' },
      stepOutputs: { write_file: 'Successfully wrote to /p/a.bak' },
      output: 'Successfully wrote to /p/a.bak',
    });
  });

  it('keeps a constant that never varies as a literal, and an argument given again as the same input', () => {
    const made = [0, 1, 2].map((i) => session(`k${i}.jsonl`, [
      call('read_text_file', { path: `/p/${i}.json`, encoding: 'utf8' }, `{"n":${i}}`),
      call('write_file', { path: `/p/${i}.json`, content: `{"n":${i}}`, mode: '$keep' }, 'ok'),
    ]));
    const forged = generalizeChain(mineChains(made)[0]);
    expect(forged.spec.steps).toEqual([
      { name: 'read_text_file', tool: 'read_text_file', inputMapping: { encoding: 'utf8', path: '$input.path' } },
      // The literal "$keep" is escaped so it is not read as a reference.
      { name: 'write_file', tool: 'write_file', inputMapping: { content: '$steps.read_text_file', mode: '$$keep', path: '$input.path' } },
    ]);
    expect(Object.keys(forged.inputSchema.properties as object)).toEqual(['path']);
  });

  it('makes one call per item of an earlier list a for_each, and the spec runs dry to its example output', async () => {
    const shapes = mineChains(sessions(), { minSessions: 2 });
    const each = shapes.find((s) => s.steps[0].tool === 'list_files')!;
    const forged = generalizeChain(each);
    expect(forged.name).toBe('list_files_then_each_read_text_file');
    expect(forged.spec.steps).toEqual([
      { name: 'list_files', tool: 'list_files', inputMapping: { depth: 1, dir: '$input.dir' } },
      { name: 'read_text_file', combinator: 'for_each', items: '$steps.list_files.files', template: { name: 'read_text_file_item', tool: 'read_text_file', inputMapping: { path: '$item.path' } } },
    ]);
    expect(forged.sideEffectingSteps).toEqual([]);
    expect(forged.examples[1]).toMatchObject({ input: { dir: '/p/lib' }, output: ['text of /p/lib/m.ts', 'text of /p/lib/n.ts', 'text of /p/lib/o.ts'] });

    // The spec as a composite, over tools that answer as the recordings did.
    const tools: ITool[] = [
      { id: 'l', name: 'list_files', displayName: 'l', description: 'l', inputSchema: { type: 'object' }, hasSideEffects: false, execute: async (args) => ({ success: true, output: { files: ['m.ts', 'n.ts', 'o.ts'].map((n) => ({ path: `${String(args.dir)}/${n}` })) } }) },
      { id: 'r', name: 'read_text_file', displayName: 'r', description: 'r', inputSchema: { type: 'object' }, hasSideEffects: false, execute: async (args) => ({ success: true, output: `text of ${String(args.path)}` }) },
    ];
    const registry = new Map(tools.map((t) => [t.name, t]));
    const builder = new ComposableToolBuilder(createStepGate({ resolve: (name) => registry.get(name) }));
    const tool = builder.build(forged.name, forged.description, forged.inputSchema, forged.spec);
    const result = await tool.execute(forged.examples[1].input, {});
    expect(result).toMatchObject({ success: true, output: forged.examples[1].output });
    // The input schema refuses what was never seen: a missing field.
    expect((await tool.execute({}, {})).details?.code).toBe('input_invalid');
  });
});

describe('generalizeChain: steps that read nothing of each other', () => {
  it("runs with schedule: 'auto' when a step does not read the step before it", () => {
    const made = [0, 1, 2].map((i) => session(`g${i}.jsonl`, [
      call('search', { query: `q${i}` }, { results: [{ id: `a${i}` }, { id: `b${i}` }, { id: `c${i}` }] }),
      call('fetch', { id: `a${i}` }, `body a${i}`),
      call('fetch', { id: `c${i}` }, `body c${i}`),
    ]));
    const forged = generalizeChain(mineChains(made)[0]);
    expect(forged.spec).toEqual({
      steps: [
        { name: 'search', tool: 'search', inputMapping: { query: '$input.query' } },
        { name: 'fetch', tool: 'fetch', inputMapping: { id: '$steps.search.results[0].id' } },
        { name: 'fetch_2', tool: 'fetch', inputMapping: { id: '$steps.search.results[2].id' } },
      ],
      schedule: 'auto',
    });
    // A chain where each step reads the one before stays sequential.
    expect(generalizeChain(mineChains(sessions())[0]).spec).not.toHaveProperty('schedule');
  });
});

describe('generalizeChain: a side-effecting for_each', () => {
  it("lists the template as side-effecting and stubs it, so the example runs dry without writing", async () => {
    const made = [0, 1, 2].map((i) => session(`w${i}.jsonl`, [
      call('list_files', { dir: `/p/${i}` }, { files: [`/p/${i}/a`, `/p/${i}/b`] }),
      call('write_file', { path: `/p/${i}/a`, content: 'x' }, 'wrote'),
      call('write_file', { path: `/p/${i}/b`, content: 'x' }, 'wrote'),
    ]));
    const forged = generalizeChain(mineChains(made)[0]);
    expect(forged.spec.steps[1]).toEqual({ name: 'write_file', combinator: 'for_each', items: '$steps.list_files.files', template: { name: 'write_file_item', tool: 'write_file', inputMapping: { content: 'x', path: '$item' } } });
    expect(forged.sideEffectingSteps).toEqual(['write_file_item']);
    expect(forged.examples[0]).toEqual({ name: 'recorded 2026-12-02T10:00:00.000Z in w0.jsonl', input: { dir: '/p/0' }, stepOutputs: { write_file_item: 'wrote' } });

    const writes: unknown[] = [];
    const tools: ITool[] = [
      { id: 'l', name: 'list_files', displayName: 'l', description: 'l', inputSchema: { type: 'object' }, hasSideEffects: false, execute: async (args) => ({ success: true, output: { files: [`${String(args.dir)}/a`, `${String(args.dir)}/b`] } }) },
      { id: 'w', name: 'write_file', displayName: 'w', description: 'w', inputSchema: { type: 'object' }, hasSideEffects: true, execute: async (args) => (writes.push(args), { success: true, output: 'wrote' }) },
    ];
    const registry = new Map(tools.map((t) => [t.name, t]));
    const builder = new ComposableToolBuilder(createStepGate({ resolve: (name) => registry.get(name) }));
    builder.bind({ sideEffectingTools: ['write_file'] });
    const result = await builder.runPipeline(forged.spec, forged.examples[0].input, {}, { dry: { stepOutputs: forged.examples[0].stepOutputs! } });
    expect(result).toMatchObject({ success: true, output: ['wrote', 'wrote'] });
    expect(writes).toEqual([]);
  });
});

describe('mineChains: a chain with a call that read its output and fed nothing', () => {
  it('still finds the chain, and does not forge the longer one seen once', () => {
    const made = sessions().slice(0, 2);
    // The third session's backup is followed by a call that counts the words it read.
    made.push(session('s3.jsonl', [...copyChain('/p/c.md', '/p/c.bak'), call('count_words', { text: 'text of /p/c.md' }, '4 words')]));
    const shapes = mineChains(made);
    expect(shapes.map((s) => [s.steps.map((step) => step.tool), s.sessions])).toEqual([[['read_text_file', 'write_file'], 3]]);
    // At a threshold of one session the longer chain is forged too, and its parts only where they stand alone.
    const all = mineChains(made, { minSessions: 1 }).map((s) => s.steps.map((step) => step.tool).join('>'));
    expect(all).toContain('read_text_file>write_file>count_words');
    expect(all).toContain('read_text_file>write_file');
    expect(all).not.toContain('read_text_file>count_words');
  });
});
