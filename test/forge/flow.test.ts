/** traceFlow: which argument parts were copied from which earlier output, and which are constants. */
import { describe, expect, it } from 'vitest';
import { traceFlow } from '../../src/index.js';
import { call } from './records.js';

describe('traceFlow', () => {
  it('finds a value copied from a field of a list item of an earlier JSON output', () => {
    const flows = traceFlow([
      call('list', { dir: 'src' }, { files: [{ path: 'src/a.ts', size: 120 }, { path: 'src/b.ts', size: 80 }] }),
      call('read', { path: 'src/b.ts', limit: 120, mode: 'utf8' }, 'text'),
    ]);
    expect(flows[1].parts).toEqual([
      { path: ['path'], value: 'src/b.ts', from: { kind: 'output', call: 0, path: ['files', 1, 'path'] } },
      { path: ['limit'], value: 120, from: { kind: 'output', call: 0, path: ['files', 0, 'size'] } },
      { path: ['mode'], value: 'utf8' },
    ]);
    expect(flows[0].parts).toEqual([{ path: ['dir'], value: 'src' }]);
  });

  it('finds a whole text output, and a line of one', () => {
    const flows = traceFlow([
      call('search', { pattern: '*.md' }, '/p/README.md\n/p/docs/guide.md'),
      call('read', { path: '/p/docs/guide.md' }, '# Guide\nhello'),
      call('write', { path: '/p/copy.md', content: '# Guide\nhello' }, 'Successfully wrote'),
    ]);
    expect(flows[1].parts[0].from).toEqual({ kind: 'line', call: 0, line: 1 });
    expect(flows[2].parts).toEqual([
      { path: ['path'], value: '/p/copy.md' },
      { path: ['content'], value: '# Guide\nhello', from: { kind: 'output', call: 1, path: [] } },
    ]);
  });

  it('prefers the latest output, links an argument given again, and leaves common values as constants', () => {
    const flows = traceFlow([
      call('a', {}, { id: 'x1', count: 5, ok: true }),
      call('b', {}, { id: 'x1' }),
      call('c', { id: 'x1', count: 5, ok: true, name: 'cfg.json' }, 'done'),
      call('d', { name: 'cfg.json' }, 'done'),
      call('e', { after: 'failed-out' }, undefined, { ok: false }),
    ]);
    expect(flows[2].parts).toEqual([
      { path: ['id'], value: 'x1', from: { kind: 'output', call: 1, path: ['id'] } },
      { path: ['count'], value: 5 },
      { path: ['ok'], value: true },
      { path: ['name'], value: 'cfg.json' },
    ]);
    expect(flows[3].parts[0].from).toEqual({ kind: 'arg', call: 2, path: ['name'] });
  });

  it('keeps a list of constants as one part, and a list with copied items item by item', () => {
    const flows = traceFlow([
      call('list', {}, { files: ['src/a.ts', 'src/b.ts'] }),
      call('read_many', { paths: ['README.md', 'LICENSE'] }, 'x'),
      call('read_many', { paths: ['src/a.ts', 'NOTES.md'] }, 'y'),
    ]);
    expect(flows[1].parts).toEqual([{ path: ['paths'], value: ['README.md', 'LICENSE'] }]);
    expect(flows[2].parts).toEqual([
      { path: ['paths', 0], value: 'src/a.ts', from: { kind: 'output', call: 0, path: ['files', 0] } },
      { path: ['paths', 1], value: 'NOTES.md' },
    ]);
  });

  it('reads only the whole lines of a cut output', () => {
    const flows = traceFlow([
      { ...call('search', {}, undefined), outputCut: '/p/a.md\n/p/b.md\n/p/c.m', outputChars: 9000 },
      call('read', { path: '/p/b.md' }, 'x'),
      call('read', { path: '/p/c.m' }, 'x'),
    ]);
    expect(flows[1].parts[0].from).toEqual({ kind: 'line', call: 0, line: 1 });
    expect(flows[2].parts[0]).not.toHaveProperty('from');
  });
});
