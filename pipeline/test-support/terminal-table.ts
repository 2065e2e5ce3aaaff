// Test support: reads back the table `pnpm eval` prints (analysis/format-table.ts), wrapped cells and stacked headers joined.

/** One row of the printed table: its model group and its cells by (unwrapped) column header. */
export interface PrintedRow {
  model: string;
  cells: Record<string, string>;
}

/**
 * The rows of the first table in `text`: the column spans come from the dashed line under the header; a line whose
 * first column is filled starts a row, a line whose first column is blank continues the one above; `model: <label>`
 * lines head their group; the table ends at the first empty line.
 */
export function parsePrintedTable(text: string): { header: string[]; rows: PrintedRow[] } {
  const lines = text.split('\n');
  const rule = lines.findIndex((line) => /^-+( +-+)+$/.test(line));
  if (rule < 0) throw new Error('no table (no dashed line under a header)');
  const spans = [...lines[rule]!.matchAll(/-+/g)].map((match) => [match.index, match.index + match[0].length] as const);
  const split = (line: string) =>
    spans.map(([from, to], i) => line.slice(from, i === spans.length - 1 ? undefined : to).trim());
  let start = rule;
  while (start > 0 && lines[start - 1]!.trim() !== '') start -= 1;
  const join = (parts: string[][]) =>
    spans.map((_, i) =>
      parts
        .map((part) => part[i]!)
        .filter(Boolean)
        .join(' '),
    );
  const header = join(lines.slice(start, rule).map(split));
  const rows: PrintedRow[] = [];
  let model = '';
  for (const line of lines.slice(rule + 1)) {
    if (line.trim() === '') break;
    if (line.startsWith('model: ')) {
      model = line.slice('model: '.length);
      continue;
    }
    const parts = split(line);
    const last = rows.at(-1);
    if (parts[0] === '' && last) {
      header.forEach((name, i) => {
        if (parts[i]) last.cells[name] = `${last.cells[name]} ${parts[i]}`.trim();
      });
    } else rows.push({ model, cells: Object.fromEntries(header.map((name, i) => [name, parts[i]!])) });
  }
  return { header, rows };
}
