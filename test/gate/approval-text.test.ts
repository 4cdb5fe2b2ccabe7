/**
 * The approval screen's text for hosts (`approvalText`, `screenQuote`): what a model chose is shown
 * quoted on one line, exactly (it reads back to the same string), whatever characters it holds;
 * while the request object keeps the values as they are, for the host to decide with.
 */
import { describe, expect, it } from 'vitest';
import { createRunPipelineTool } from '../../src/agent-tools/run-pipeline.js';
import { createScriptTool } from '../../src/agent-tools/script/index.js';
import { approvalText, screenQuote, type ApprovalAction } from '../../src/index.js';
import { registry, tool } from '../helpers/tools.js';

/** Read a quoted string of the screen back: the inverse of the escaping. */
function unquote(shown: string): string {
  expect(shown.startsWith('"') && shown.endsWith('"')).toBe(true);
  return shown.slice(1, -1).replace(/\\(u\{([0-9A-F]+)\}|u([0-9A-F]{4})|n|r|t|"|\\)/gu, (_all, what: string, astral?: string, bmp?: string) => {
    if (astral) return String.fromCodePoint(parseInt(astral, 16));
    if (bmp) return String.fromCharCode(parseInt(bmp, 16));
    return ({ n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' } as Record<string, string>)[what];
  });
}

/** Anything that could end a line or lay out the text around it unseen. */
const UNSEEN = /[\p{C}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/u;

describe('screenQuote', () => {
  it('shows every string on one line, and reads back to the very string', () => {
    const nasty = [
      'plain',
      'a "quoted" \\ back',
      'line\nbreak\r\n\ttab',
      'sep\u2028par\u2029next\u0085',
      '\u202Eevil\u202C \u2066iso\u2069 \u200E\u200F\u061C',
      'zero\u200Bwidth\u200C\u200D\u2060\uFEFF\u00AD',
      'tag\u{E0041}\u{E007F} variation\uFE0F filler\u3164\u115F',
      'lone \uD800 surrogate \uDC00',
      'wide\u3000space\u00A0nbsp\u2007figure',
      'private \uE000 and bell \u0007 and escape \u001B[31m',
      'emoji 😀 and accents é ü',
    ];
    for (const value of nasty) {
      const shown = screenQuote(value);
      expect(shown).not.toMatch(UNSEEN);
      expect(shown).not.toContain('\n');
      expect(unquote(shown)).toBe(value);
    }
    expect(screenQuote('emoji 😀 and accents é ü')).toBe('"emoji 😀 and accents é ü"');
    expect(screenQuote('tag\u{E0041}')).toBe('"tag\\u{E0041}"');
  });

  it('escapes each character by its own rule', () => {
    expect(screenQuote('a\rb\tc"d\\e\nf g')).toBe('"a\\rb\\tc\\"d\\\\e\\nf g"');
    // The last code point of the first plane keeps the four-digit form; the planes above take braces.
    expect(screenQuote('\uFFFF\u{10FFFF}')).toBe('"\\uFFFF\\u{10FFFF}"');
  });

  it('cuts a long string at the bound, saying how long it was, never inside an escape', () => {
    expect(screenQuote('abcdef', 3)).toBe('"abc…" (6 characters; the first 3 shown)');
    expect(screenQuote('ab\ncd', 3)).toBe('"ab…" (5 characters; the first 2 shown)');
    expect(screenQuote('😀😀😀', 4)).toBe('"😀😀…" (6 characters; the first 4 shown)');
  });
});

describe('approvalText', () => {
  it('marks what the model chose before it; the request keeps the values as they are', async () => {
    const asked: ApprovalAction[] = [];
    const write = tool('write_file', () => 'ok', { hasSideEffects: true });
    const gate = registry(write).gate({ approvals: { requestApproval: (action) => (asked.push(action), { approved: true }) } });
    const id = 'a\nTool: read_file';
    await createRunPipelineTool(gate, { sideEffectingTools: ['write_file'] }).execute({ steps: [{ id, tool: 'write_file', args: { 'k\n': 'v\u2028' } }] }, {});
    const intention = 'tidy\u202E';
    await createScriptTool(gate, { sideEffectingTools: ['write_file'] }).execute({ intention, code: "await callTool('write_file', {}); return 1;" }, {});
    expect(asked.map((a) => [a.step, a.caller?.intention, a.args])).toEqual([
      [id, undefined, { 'k\n': 'v\u2028' }],
      ['call 1', intention, {}],
    ]);
    expect(approvalText(asked[0]).split('\n')).toEqual([
      'Allow a call that changes something?',
      'Tool: write_file',
      'Step (chosen by the model): "a\\nTool: read_file"',
      'Through: run_pipeline',
      'Arguments (chosen by the model), 1 field:',
      '  "k\\n": "v\\u2028"',
    ]);
    expect(approvalText(asked[1]).split('\n')).toEqual([
      'Allow a call that changes something?',
      'Tool: write_file',
      'Step: "call 1"',
      'Through: run_js',
      'Intention (chosen by the model): "tidy\\u202E"',
      'Arguments (chosen by the model): none',
    ]);
  });

  it('shows arguments that cannot be written as JSON, and values of every kind, without throwing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const text = approvalText({ toolId: 't', toolName: 'w', step: 'w', args: { n: 1, b: true, z: null, big: 10n, cyclic, list: [1, 'x'], f: () => 1 } });
    expect(text.split('\n').slice(4)).toEqual([
      'Arguments (as the client sent them), 7 fields:',
      '  "n": 1',
      '  "b": true',
      '  "z": null',
      '  "big": (a value that cannot be written as JSON)',
      '  "cyclic": (a value that cannot be written as JSON)',
      '  "list": [1,"x"]',
      '  "f": (function: not a JSON value)',
    ]);
  });
});

describe('approvalText, for an action a host builds', () => {
  const action = (args: unknown, more: Partial<ApprovalAction> = {}): ApprovalAction => ({ toolId: 't', toolName: 'w', step: 'w', args: args as Record<string, unknown>, ...more });
  const argumentLines = (text: string) => text.split('\n').slice(4);
  /** The line naming `count` fields by name, from field `from` on. */
  const namesLine = (name: (i: number) => string, from: number, count: number) => `  ${Array.from({ length: count }, (_, i) => `"${name(from + i)}"`).join(', ')}`;

  it('a direct call, and a call through a composite inside others: host names escaped but not quoted, a long one cut', () => {
    expect(approvalText(action('text', { toolName: `say"${'w'.repeat(246)}` })).split('\n')).toEqual([
      'Allow a call that changes something?',
      `Tool: say"${'w'.repeat(196)}… (250 characters)`,
      'Step: "w"',
      'Through: a direct call from the client',
      'Arguments (as the client sent them): "text"',
    ]);
    const caller = { door: 'composite' as const, composite: 'tidy "up"', path: ['outer', 'inner\n'], modelChosen: [] };
    expect(approvalText(action([1, 'two'], { caller })).split('\n')).toEqual([
      'Allow a call that changes something?',
      'Tool: w',
      'Step: "w"',
      'Through: composite "tidy \\"up\\""',
      'Inside: outer > inner\\n',
      'Arguments: [1,"two"]',
    ]);
    // A caller without the list of what the model chose marks nothing.
    expect(approvalText(action({}, { caller: { door: 'run_js', path: [] } as never })).split('\n').slice(2)).toEqual(['Step: "w"', 'Through: run_js', 'Arguments: none']);
  });

  it('arguments that cannot be read, a value that cannot be read, and a long value as JSON', () => {
    const unreadable = new Proxy({}, { ownKeys: () => { throw new Error('no keys'); } });
    expect(argumentLines(approvalText(action(unreadable)))).toEqual(['Arguments (as the client sent them): (arguments that cannot be read)']);
    const getter = { get x(): unknown { throw new Error('no value'); } };
    expect(argumentLines(approvalText(action(getter)))).toEqual(['Arguments (as the client sent them), 1 field:', '  "x": "(a value that cannot be read)"']);
    const list = new Array<number>(300).fill(1);
    expect(argumentLines(approvalText(action({ list })))[1]).toBe(`  "list": [${'1,'.repeat(249)}1… (601 characters of JSON; the first 500 shown)`);
  });

  it('past 40 fields, or 6,000 characters of argument lines, the rest are named; past 2,000 characters of names, counted', () => {
    const fields = (n: number, name: (i: number) => string, value: unknown) => Object.fromEntries(Array.from({ length: n }, (_, i) => [name(i), value]));
    const one = argumentLines(approvalText(action(fields(41, (i) => `f${i}`, 0))));
    expect(one).toHaveLength(1 + 40 + 2);
    expect(one.slice(-2)).toEqual(['  … and 1 more field, values not shown; by name:', '  "f40"']);
    // 20 values of 500 characters: each line is about 510, so the 12th passes 6,000.
    const long = argumentLines(approvalText(action(fields(20, (i) => `f${i}`, 'x'.repeat(500)))));
    expect(long.slice(0, 1)).toEqual(['Arguments (as the client sent them), 20 fields:']);
    expect(long.slice(13)).toEqual([
      '  … and 8 more fields, values not shown; by name:',
      namesLine((i) => `f${i}`, 12, 8),
    ]);
    // 100 names of 48 characters: 40 shown with values, then 38 names fit in 2,000 characters.
    const named = (i: number) => `n${String(i).padStart(3, '0')}`.padEnd(48, '_');
    const many = argumentLines(approvalText(action(fields(100, named, 0))));
    expect(many.slice(41)).toEqual([
      '  … and 60 more fields, values not shown; by name:',
      namesLine(named, 40, 38),
      '  … and 22 more field names not shown',
    ]);
    // At the bounds exactly: ten lines of 600 characters make 6,000, so the eleventh field is named;
    // 26 names of 75 characters quoted, with their separators, make 2,000, so the 27th is counted.
    const atLines = argumentLines(approvalText(action(fields(11, (i) => `${i}`.padEnd(100, 'n'), 'v'.repeat(492)))));
    expect(atLines[1]).toHaveLength(600);
    expect(atLines.slice(11)).toEqual(['  … and 1 more field, values not shown; by name:', `  "${'10'.padEnd(100, 'n')}"`]);
    const wide = (i: number) => `w${String(i).padStart(3, '0')}`.padEnd(73, '_');
    const atNames = argumentLines(approvalText(action(fields(70, wide, 0))));
    expect(atNames.slice(41)).toEqual([
      '  … and 30 more fields, values not shown; by name:',
      namesLine(wide, 40, 26),
      '  … and 4 more field names not shown',
    ]);
  });
});
