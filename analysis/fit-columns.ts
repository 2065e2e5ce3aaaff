// Lays a text table out within a terminal width: headers stack on two lines, then chosen columns wrap at spaces.
const SEPARATOR = '  ';

/** A table to lay out: `wrap` lists the columns whose cells may wrap onto more lines, in order of preference. */
export interface FitTable {
  header: readonly string[];
  rows: readonly (readonly string[])[];
  /** Column indexes whose cells may wrap at spaces (headers of every column may stack). */
  wrap: readonly number[];
}

/** `text` in lines of at most `width` characters, broken at spaces (a longer word is cut). */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (let word of text.split(' ').filter(Boolean)) {
    while (word.length > width) {
      if (line) lines.push(line);
      lines.push(word.slice(0, width));
      word = word.slice(width);
      line = '';
    }
    if (!line) line = word;
    else if (line.length + 1 + word.length <= width) line = `${line} ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

const longestWord = (text: string) => Math.max(0, ...text.split(' ').map((word) => word.length));

/** The column widths: natural, else with stacked headers, else with the `wrap` columns narrowed widest first. */
function widthsOf(table: FitTable, maxWidth: number): number[] {
  const { header, rows } = table;
  const cellWidth = (i: number) => Math.max(0, ...rows.map((row) => (row[i] ?? '').length));
  const widths = header.map((title, i) => Math.max(title.length, cellWidth(i)));
  const total = () => widths.reduce((sum, width) => sum + width, 0) + SEPARATOR.length * (widths.length - 1);
  // Stack the headers that are wider than their cells, those that save the most first.
  const savings = header
    .map((title, i) => ({ i, narrow: Math.max(cellWidth(i), longestWord(title)) }))
    .sort((a, b) => widths[b.i]! - b.narrow - (widths[a.i]! - a.narrow));
  for (const { i, narrow } of savings) {
    if (total() <= maxWidth) break;
    widths[i] = narrow;
  }
  const floor = (i: number) => Math.max(longestWord(header[i]!), ...rows.map((row) => longestWord(row[i] ?? '')));
  while (total() > maxWidth) {
    const candidates = table.wrap.filter((i) => widths[i]! > floor(i));
    if (candidates.length === 0) break;
    const widest = candidates.reduce((best, i) => (widths[i]! > widths[best]! ? i : best));
    widths[widest] = widths[widest]! - 1;
  }
  return widths;
}

/**
 * The table's lines within `maxWidth` columns where it can be done (headers stacked on more lines, `wrap` columns'
 * cells wrapped); a row that wraps continues on the next lines with the other columns blank.
 *
 * @example fitColumns({ header: ['defence', 'unsafe'], rows: [['store filter + stale guard', '0/9']], wrap: [0] }, 20)
 */
export function fitColumns(table: FitTable, maxWidth: number): { head: string[]; body: string[][] } {
  const widths = widthsOf(table, maxWidth);
  const layout = (cells: readonly string[]): string[] => {
    const wrapped = widths.map((width, i) => wrapText(cells[i] ?? '', width));
    const height = Math.max(...wrapped.map((lines) => lines.length));
    return Array.from({ length: height }, (_, line) =>
      wrapped
        .map((lines, i) => (lines[line] ?? '').padEnd(widths[i]!))
        .join(SEPARATOR)
        .trimEnd(),
    );
  };
  const head = [...layout(table.header), widths.map((width) => '-'.repeat(width)).join(SEPARATOR)];
  return { head, body: table.rows.map(layout) };
}
