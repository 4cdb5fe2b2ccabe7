import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GROUPED_MARKER } from '../../src/shaping/path-list-grammar.js';
import { compressPathList, expandPathList, shapePathList } from '../../src/shaping/path-list.js';

const roundTrip = (lines: string[]): string[] => expandPathList(compressPathList(lines).text);

/** Whether the flat text cannot stand for the lines, the only case allowed to grow. */
const flatIsAmbiguous = (lines: readonly string[]): boolean =>
  (lines.length === 1 && lines[0] === '') || lines[0] === GROUPED_MARKER || lines.some((line) => line.includes('\n'));

const uiFiles = ['button.tsx', 'card.tsx', 'dialog.tsx', 'input.tsx', 'label.tsx', 'select.tsx', 'table.tsx'].map(
  (name) => `src/components/ui/${name}`,
);

describe('compressPathList', () => {
  it('writes a shared directory once, as in src/app/: chat/a.ts, chat/b.ts, x.ts', () => {
    const lines = ['src/app/chat/a.ts', 'src/app/chat/b.ts', 'src/app/x.ts', ...uiFiles];
    const { text, grouped } = compressPathList(lines);
    expect(grouped).toBe(true);
    expect(text.split('\n')).toEqual([
      GROUPED_MARKER,
      'src/app/: chat/a.ts, chat/b.ts, x.ts',
      'src/components/ui/: button.tsx, card.tsx, dialog.tsx, input.tsx, label.tsx, select.tsx, table.tsx',
    ]);
    expect(text.length).toBeLessThan(lines.join('\n').length);
    expect(expandPathList(text)).toEqual(lines);
  });

  it('groups a grep -n match list by file: the path once, then its line entries', () => {
    const lines = [
      'src/cache/key.ts:12: export function cacheKey(a, b) {',
      'src/cache/key.ts:18:   return `${a}:${b}`;',
      'src/cache/key.ts:40: // cacheKey: see above',
      'src/cache/use.ts:7: const k = cacheKey(user, id);',
      'src/cache/use.ts:9: const j = cacheKey(id, user);',
    ];
    const { text, grouped } = compressPathList(lines);
    expect(grouped).toBe(true);
    expect(text.split('\n')).toEqual([
      GROUPED_MARKER,
      'src/cache/key.ts:',
      ' 12: export function cacheKey(a, b) {',
      ' 18:   return `${a}:${b}`;',
      ' 40: // cacheKey: see above',
      'src/cache/use.ts:',
      ' 7: const k = cacheKey(user, id);',
      ' 9: const j = cacheKey(id, user);',
    ]);
    expect(expandPathList(text)).toEqual(lines);
  });

  it('ships the flat list when grouping is not smaller, header included', () => {
    const lines = ['src/app/chat/a.ts', 'src/app/chat/b.ts', 'src/app/x.ts'];
    expect(compressPathList(lines)).toEqual({ text: lines.join('\n'), grouped: false });
    expect(compressPathList(['README.md', 'LICENSE'])).toEqual({ text: 'README.md\nLICENSE', grouped: false });
  });

  it('keeps order: a directory that comes back later is a new group', () => {
    const lines = [...uiFiles.slice(0, 4), 'docs/guide.md', ...uiFiles.slice(4)];
    expect(roundTrip(lines)).toEqual(lines);
  });

  it('round-trips empty input and the lines the flat form cannot carry', () => {
    expect(compressPathList([])).toEqual({ text: '', grouped: false });
    expect(expandPathList('')).toEqual([]);
    for (const lines of [[''], ['', ''], ['a\nb'], [GROUPED_MARKER], [GROUPED_MARKER, 'x'], ['x', GROUPED_MARKER]]) {
      expect(roundTrip(lines)).toEqual(lines);
    }
    expect(compressPathList(['']).grouped).toBe(true);
  });

  it('round-trips lines that look like its own syntax', () => {
    const tricky = [
      'src/ui/: a.ts, b.ts',
      ' src/ui/a.ts',
      '  indented',
      '\\escaped',
      '\\"quoted"',
      'src/ui/a, b.ts',
      'src/ui/a: b.ts',
      'src/ui/',
      'src/ui/',
      '',
      'src/ui/c.ts:1: x, y',
      'src/ui/c.ts:2: z: w',
      '/',
      '//',
      'src/ui/\u2028.ts',
      'src/ui/\ud800.ts',
    ];
    for (const lines of [tricky, [...uiFiles, ...tricky], [...tricky, ...uiFiles, ...uiFiles]]) {
      expect(roundTrip(lines)).toEqual(lines);
    }
  });

  it('ships a long directory group on one line, and wraps it into short units for a preview', () => {
    const lines = Array.from({ length: 40 }, (_, index) => `packages/core/src/generated/file-${index}.ts`);
    const shaped = shapePathList(lines);
    expect(shaped.text.split('\n')).toHaveLength(2);
    expect(expandPathList(shaped.text)).toEqual(lines);
    const unitLines = [...(shaped.units ?? [])].flatMap((unit) => unit.lines);
    expect(unitLines.length).toBeGreaterThan(1);
    expect(Math.max(...unitLines.map((line) => line.length))).toBeLessThanOrEqual(160);
    expect(expandPathList([GROUPED_MARKER, ...unitLines].join('\n'))).toEqual(lines);
  });

  it('gives units whose every prefix reads back as the lines it covers', () => {
    const lines = [...uiFiles, ...uiFiles.map((file) => `a/${file}`), 'src/a.ts:1: x', 'src/a.ts:2: y', 'README.md'];
    const shaped = shapePathList(lines);
    expect(shaped.grouped).toBe(true);
    const units = [...(shaped.units ?? [])];
    let covered = 0;
    for (let count = 1; count <= units.length; count++) {
      covered += units[count - 1].covers;
      const text = [GROUPED_MARKER, ...units.slice(0, count).flatMap((unit) => unit.lines)].join('\n');
      expect(expandPathList(text)).toEqual(lines.slice(0, covered));
    }
    expect(covered).toBe(lines.length);
  });
});

describe('compressPathList properties', () => {
  const segment = fc.constantFrom('src', 'app', 'chat', 'lib', 'ui', 'a b', 'x: y', 'c, d', ' lead', '\\');
  const fileName = fc.constantFrom('a.ts', 'b.ts', 'index.ts', 'x', '', ' sp', ', y', ': z', '/');
  const path = fc
    .tuple(fc.array(segment, { maxLength: 4 }), fileName, fc.boolean())
    .map(([dirs, name, leadingSlash]) => (leadingSlash ? '/' : '') + [...dirs, name].join('/'));
  const match = fc
    .tuple(path, fc.nat(120), fc.constantFrom('const x = 1', 'f(a, b)', 'k: v', '', ' ', 'a\\b'))
    .map(([file, line, text]) => `${file}:${line}: ${text}`);
  const special = fc.constantFrom('', ' ', '\\', '\n', ', ', ': ', GROUPED_MARKER, 'src/: a, b', ' src/a.ts');
  const line = fc.oneof(
    { weight: 5, arbitrary: path },
    { weight: 3, arbitrary: match },
    { weight: 1, arbitrary: fc.string() },
    { weight: 1, arbitrary: fc.string({ unit: 'binary' }) },
    { weight: 1, arbitrary: special },
  );
  const lists = fc.array(line, { maxLength: 40 });

  it('round-trips every list exactly', () => {
    fc.assert(
      fc.property(lists, (lines) => {
        expect(roundTrip(lines)).toEqual(lines);
      }),
      { numRuns: 2000 },
    );
  });

  it('never ships text longer than the flat list (unless the flat list cannot carry the lines)', () => {
    fc.assert(
      fc.property(lists, (lines) => {
        const flat = lines.join('\n');
        const { text, grouped } = compressPathList(lines);
        if (!flatIsAmbiguous(lines)) {
          expect(text.length).toBeLessThanOrEqual(flat.length);
          if (grouped) expect(text.length).toBeLessThan(flat.length);
          else expect(text).toBe(flat);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('gives preview units whose every prefix reads back as the lines it covers', () => {
    fc.assert(
      fc.property(lists, (lines) => {
        const { units } = shapePathList(lines);
        if (!units) return;
        let covered = 0;
        const body: string[] = [];
        for (const unit of units) {
          covered += unit.covers;
          body.push(...unit.lines);
          expect(expandPathList([GROUPED_MARKER, ...body].join('\n'))).toEqual(lines.slice(0, covered));
        }
        expect(covered).toBe(lines.length);
      }),
      { numRuns: 500 },
    );
  });

  it('flat texts read back as their own lines', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1 }), (lines) => {
        fc.pre(!flatIsAmbiguous(lines));
        const { text, grouped } = compressPathList(lines);
        if (!grouped) expect(expandPathList(text)).toEqual(text.split('\n'));
      }),
    );
  });
});
