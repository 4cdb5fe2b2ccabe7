/**
 * Reading callgrind's output for bench/instructions.ts: the instructions each function executed
 * itself (not counting what it called). Code that V8 compiled at run time has no symbols, so its
 * addresses are named from the perf map Node writes under `--perf-basic-prof`, and those names'
 * places (in the bench's bundle or in the package's dist) are mapped back to the sources through
 * each file's own source map.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One code object V8 announced in its perf map: where it starts, how long it is, its name. */
interface PerfEntry {
  start: number;
  end: number;
  name: string;
  /** Its place in the file: a later entry at the same address is newer code. */
  order: number;
}

/** How far back a lookup scans for an entry covering an address (code objects are small and rarely nest deeper). */
const SCAN_BACK = 64;

/** The code objects of a perf map (`/tmp/perf-<pid>.map`), by start address. */
function readPerfMap(path: string): PerfEntry[] {
  const entries: PerfEntry[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const first = line.indexOf(' ');
    const second = line.indexOf(' ', first + 1);
    if (first < 0 || second < 0) continue;
    const start = parseInt(line.slice(0, first), 16);
    entries.push({ start, end: start + parseInt(line.slice(first + 1, second), 16), name: line.slice(second + 1), order: entries.length });
  }
  return entries.sort((a, b) => a.start - b.start);
}

/** The newest entry covering `address`, if any. */
function covering(entries: readonly PerfEntry[], address: number): PerfEntry | undefined {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (entries[mid].start <= address) low = mid + 1;
    else high = mid;
  }
  let best: PerfEntry | undefined;
  for (let i = low - 1; i >= 0 && i >= low - SCAN_BACK; i--) {
    const entry = entries[i];
    if (entry.start <= address && address < entry.end && (best === undefined || entry.order > best.order)) best = entry;
  }
  return best;
}

/**
 * A JIT name (`JS:*start file:///…/dist/engine/leaf.js:139:5`) as the function and its place in
 * the sources (`start src/engine/leaf.ts:138`), when the file's source map knows it.
 */
function sourceName(name: string, maps: Map<string, SourceMap | undefined>): string {
  const match = /^JS:[*~^+]?(\S*) (file:\/\/\S+):(\d+):(\d+)$/.exec(name);
  if (!match) return name;
  const [, fn, url, line, column] = match;
  if (!maps.has(url)) {
    let map: SourceMap | undefined;
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')));
    } catch {
      map = undefined;
    }
    maps.set(url, map);
  }
  const found = maps.get(url)?.findEntry(Number(line) - 1, Number(column) - 1);
  // findEntry gives an empty object for a place the map does not cover.
  const entry = found && 'originalSource' in found ? found : undefined;
  if (!entry) return `${fn || '(anonymous)'} ${url.split('/').pop()}:${line}`;
  const file = entry.originalSource;
  // Sources are named relative to the map's folder, or as file URLs.
  const path = file.startsWith('file:') ? fileURLToPath(file) : resolve(dirname(fileURLToPath(url)), file);
  const source = relative(process.cwd(), path);
  return `${fn || '(anonymous)'} ${source}:${entry.originalLine + 1}`;
}

/** A C++ name without its parameter list (`v8::internal::Heap::Scavenge`), which adds length, not meaning. */
function withoutSignature(name: string): string {
  return name.replaceAll('(anonymous namespace)::', '').replace(/\(.*$/, '');
}

/**
 * The instructions each function executed itself, from a callgrind output written with
 * `--dump-instr=yes`; code without symbols is named from `perfMapPath`.
 */
export function selfCostByFunction(outPath: string, perfMapPath: string): Map<string, number> {
  const entries = readPerfMap(perfMapPath);
  const sourceMaps = new Map<string, SourceMap | undefined>();
  const named = new Map<number, string>();
  /** The name of the code at `address`: cached, the same address recurs on many lines. */
  const nameAt = (address: number): string => {
    let name = named.get(address);
    if (name === undefined) {
      const entry = covering(entries, address);
      name = entry ? sourceName(entry.name, sourceMaps) : '(unknown compiled code)';
      named.set(address, name);
    }
    return name;
  };
  // Callgrind's format names a file, object or function once by `(id) name`, then by `(id)` alone.
  const objects = new Map<string, string>();
  const functions = new Map<string, string>();
  const remember = (ids: Map<string, string>, text: string): string => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(text);
    if (!match) return text;
    if (match[2] !== undefined) ids.set(match[1], match[2]);
    return ids.get(match[1]) ?? text;
  };
  const costs = new Map<string, number>();
  let object = '';
  let fn = '';
  let address = 0;
  let afterCalls = false;
  for (const line of readFileSync(outPath, 'utf8').split('\n')) {
    if (line.startsWith('ob=')) object = remember(objects, line.slice(3));
    else if (line.startsWith('fn=')) fn = remember(functions, line.slice(3));
    else if (line.startsWith('cob=')) remember(objects, line.slice(4));
    else if (line.startsWith('cfn=')) remember(functions, line.slice(4));
    else if (line.startsWith('calls=')) afterCalls = true;
    else if (/^[0-9+*-]/.test(line)) {
      const [position, , instructions] = line.split(' ');
      if (position.startsWith('0x')) address = parseInt(position, 16);
      else if (position[0] === '+') address += Number(position.slice(1));
      else if (position[0] === '-') address -= Number(position.slice(1));
      // The line after `calls=` is the cost of the call, counted where it was spent.
      if (afterCalls) {
        afterCalls = false;
        continue;
      }
      if (instructions === undefined) continue;
      const jit = fn.startsWith('0x') && (object === '???' || object === '');
      const name = jit ? nameAt(address) : withoutSignature(fn);
      costs.set(name, (costs.get(name) ?? 0) + Number(instructions));
    }
  }
  return costs;
}
