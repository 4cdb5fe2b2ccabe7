/** Markdown tables for the benchmark output. */

/** Print a table: a header row and rows of cells (numbers right as they are). */
export function printTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): void {
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`);
  for (const row of rows) console.log(`| ${row.map(cell).join(' | ')} |`);
}

function cell(value: string | number): string {
  return typeof value === 'number' ? value.toLocaleString('en-US') : value;
}

/** A percentage with one decimal (negative: a growth, when the value is a reduction). */
export function percent(value: number): string {
  return `${value.toFixed(1)}%`;
}

/** The change from `baseline` to `candidate`, signed: `-31.2%` is smaller, `+4.0%` larger. */
export function change(baseline: number, candidate: number): string {
  const value = baseline === 0 ? 0 : ((candidate - baseline) / baseline) * 100;
  return `${value > 0 ? '+' : ''}${value.toFixed(1)}%`;
}
