/**
 * Chains linked by a shared value: `get_file_info(F)` then `read_text_file(F)`, where neither call
 * copies the other's output, are mined like chains linked by a copy, and forged with one `$input`
 * field both steps read.
 */
import { describe, expect, it } from 'vitest';
import { ComposableToolBuilder, createStepGate, generalizeChain, mineChains, type ITool, type RecordedSession } from '../../src/index.js';
import { call, session } from './records.js';

const info = (file: string) => `size: ${file.length * 100}\nisFile: true\npermissions: 644`;
const text = (file: string) => `contents of ${file}`;

/** Look a file up, then read it: the same path given twice. */
function inspectThenRead(file: string) {
  return [call('get_file_info', { path: file }, info(file)), call('read_text_file', { path: file }, text(file))];
}

/** Calls that share nothing with the chain (nor with each other). */
function noise(n: number) {
  return [call('list_allowed_directories', {}, '/p'), call('get_time', { zone: `zone-${n}` }, `12:0${n}`), call('search_files', { path: `/p/dir-${n}`, pattern: '*.md' }, `/p/dir-${n}/x${n}.md`)];
}

function sessions(): RecordedSession[] {
  return [
    session('v1.jsonl', [...noise(1), ...inspectThenRead('/p/a.md'), ...noise(2)]),
    session('v2.jsonl', [...inspectThenRead('/p/src/b.ts'), ...noise(3)]),
    session('v3.jsonl', [...noise(4), ...inspectThenRead('/p/c.json')]),
    session('v4.jsonl', [...noise(5), ...noise(6)]),
  ];
}

describe('mineChains: a shared argument links two calls', () => {
  it('finds get_file_info(F) then read_text_file(F), seen in 3 sessions, and nothing of the noise', () => {
    const shapes = mineChains(sessions());
    expect(shapes.map((shape) => [shape.steps.map((step) => step.tool), shape.sessions])).toEqual([[['get_file_info', 'read_text_file'], 3]]);
    expect(shapes[0].signature).toBe('get_file_info(.path=C) > read_text_file(.path=&0.path)');
  });

  it('still needs the value to be shared: different files in each call make no chain', () => {
    const apart = [1, 2, 3].map((i) => session(`d${i}.jsonl`, [call('get_file_info', { path: `/p/${i}.md` }, info(`/p/${i}.md`)), call('read_text_file', { path: `/q/${i}.md` }, text(`/q/${i}.md`))]));
    expect(mineChains(apart)).toEqual([]);
  });

  it('forges one input field read by both steps, and the spec runs to each example output', async () => {
    const forged = generalizeChain(mineChains(sessions())[0]);
    expect(forged.name).toBe('get_file_info_then_read_text_file');
    expect(forged.spec).toEqual({
      steps: [
        { name: 'get_file_info', tool: 'get_file_info', inputMapping: { path: '$input.path' } },
        { name: 'read_text_file', tool: 'read_text_file', inputMapping: { path: '$input.path' } },
      ],
    });
    expect(forged.inputSchema).toEqual({
      type: 'object',
      properties: { path: { type: 'string', examples: ['/p/a.md', '/p/src/b.ts', '/p/c.json'] } },
      required: ['path'],
      additionalProperties: false,
    });
    expect(forged.examples.map((example) => example.input)).toEqual([{ path: '/p/a.md' }, { path: '/p/src/b.ts' }, { path: '/p/c.json' }]);

    const seen: string[] = [];
    const tools: ITool[] = [
      { id: 'i', name: 'get_file_info', displayName: 'i', description: 'i', inputSchema: { type: 'object' }, hasSideEffects: false, execute: async (args) => (seen.push(`info ${String(args.path)}`), { success: true, output: info(String(args.path)) }) },
      { id: 'r', name: 'read_text_file', displayName: 'r', description: 'r', inputSchema: { type: 'object' }, hasSideEffects: false, execute: async (args) => (seen.push(`read ${String(args.path)}`), { success: true, output: text(String(args.path)) }) },
    ];
    const registry = new Map(tools.map((t) => [t.name, t]));
    const tool = new ComposableToolBuilder(createStepGate({ resolve: (name) => registry.get(name) })).build(forged.name, forged.description, forged.inputSchema, forged.spec);
    for (const example of forged.examples) {
      const result = await tool.execute(example.input, {});
      expect(result).toMatchObject({ success: true, output: example.output });
    }
    expect(seen.sort()).toEqual(['/p/a.md', '/p/c.json', '/p/src/b.ts'].flatMap((file) => [`info ${file}`, `read ${file}`]).sort());
  });

  it('mines both kinds of link in one chain: a shared argument and a copied output', () => {
    const made = [1, 2, 3].map((i) => session(`m${i}.jsonl`, [
      ...noise(i),
      call('get_file_info', { path: `/p/${i}.md` }, info(`/p/${i}.md`)),
      call('read_text_file', { path: `/p/${i}.md` }, text(`/p/${i}.md`)),
      call('write_file', { path: `/p/${i}.bak`, content: text(`/p/${i}.md`) }, 'wrote'),
    ]));
    const [shape] = mineChains(made);
    expect(shape.signature).toBe('get_file_info(.path=C) > read_text_file(.path=&0.path) > write_file(.content=#1,.path=C)');
    expect(generalizeChain(shape).spec.steps.map((step) => (step as { inputMapping?: unknown }).inputMapping)).toEqual([
      { path: '$input.path' },
      { path: '$input.path' },
      { content: '$steps.read_text_file', path: '$input.path_2' },
    ]);
  });

  it('does not link by a habit: a value shared by other tools in several sessions, or given to the same tool again', () => {
    const made = [1, 2, 3].map((i) => session(`h${i}.jsonl`, [
      // The person's home folder, given to two unrelated tools in every session.
      call('search_docs', { query: `topic ${i}`, folder: '/home/me' }, `doc ${i}`),
      ...inspectThenRead(`/p/${i}/one.md`),
      call('list_dir', { dir: '/home/me' }, `entries ${i}`),
      ...inspectThenRead(`/p/${i}/two.md`),
      // The same tool given the same recipient twice: a habit too.
      call('send_mail', { to: 'team@example.com', subject: `a${i}` }, 'sent'),
      call('send_mail', { to: 'team@example.com', subject: `b${i}` }, 'sent'),
    ]));
    const shapes = mineChains(made);
    expect(shapes.map((shape) => [shape.signature, shape.sessions, shape.occurrences.length])).toEqual([
      ['get_file_info(.path=C) > read_text_file(.path=&0.path)', 3, 6],
    ]);
  });
});
