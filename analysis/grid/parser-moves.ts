// How far `--parser strict` moves each summary cell or row from the paper's parser: every k/n and count that changes.

/** One value that differs between the two parsers' summaries. */
export interface ParserMove {
  /** The cell or row (`sim/graphiti/direct/none`). */
  row: string;
  /** Path inside the row (`unsafe`, `parseFailures`, `defaultHops[0]`). */
  field: string;
  /** k/n (with rate) for a proportion, the number for a count. */
  paper: { k: number; n: number; rate: number | null } | number;
  strict: { k: number; n: number; rate: number | null } | number;
}

/** Every move, and how many rows were compared and moved. */
export interface ParserMoves {
  rows: number;
  movedRows: number;
  moves: ParserMove[];
}

type Row = Record<string, unknown>;
const isRow = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);
const isProportion = (value: unknown): value is { k: number; n: number; rate: number | null } =>
  isRow(value) && typeof value.k === 'number' && typeof value.n === 'number';

/** Proportions at any depth and numbers at the top level of a row, by path. */
function measures(row: Row): Map<string, ParserMove['paper']> {
  const found = new Map<string, ParserMove['paper']>();
  const walk = (value: unknown, path: string, depth: number): void => {
    if (isProportion(value)) found.set(path, { k: value.k, n: value.n, rate: value.rate ?? null });
    else if (typeof value === 'number' && depth === 1) found.set(path, value);
    else if (Array.isArray(value))
      value.forEach((item, i) => {
        walk(item, `${path}[${i}]`, depth + 1);
      });
    else if (isRow(value))
      for (const [key, item] of Object.entries(value)) walk(item, path === '' ? key : `${path}.${key}`, depth + 1);
  };
  walk(row, '', 0);
  return found;
}

/** Compares two summaries of one run, row by row, for every array of rows that carry k/n (grid `cells`, Table 14–16 rows). */
export function parserMoves(paper: object, strict: object, label: (row: unknown) => string): ParserMoves {
  const result: ParserMoves = { rows: 0, movedRows: 0, moves: [] };
  for (const [key, rows] of Object.entries(paper)) {
    const other = (strict as Record<string, unknown>)[key];
    if (!Array.isArray(rows) || !Array.isArray(other)) continue;
    rows.forEach((row: unknown, i) => {
      const before = isRow(row) && isRow(other[i]) ? measures(row) : new Map();
      // Rows without a proportion (Table 9's guard metrics) do not depend on any parser.
      if (![...before.values()].some((value) => typeof value !== 'number')) return;
      result.rows += 1;
      const after = measures(other[i] as Row);
      const moves = [...before]
        .filter(([path, value]) => JSON.stringify(value) !== JSON.stringify(after.get(path)))
        .map(([field, value]) => ({ row: label(row), field, paper: value, strict: after.get(field)! }));
      if (moves.length > 0) result.movedRows += 1;
      result.moves.push(...moves);
    });
  }
  return result;
}

const show = (value: ParserMove['paper']) =>
  typeof value === 'number'
    ? String(value)
    : `${value.k}/${value.n}${value.rate === null ? '' : ` ${(value.rate * 100).toFixed(1)}%`}`;

/** The moves as a fixed-width table, each row named once. */
export function formatParserMoves(moves: ParserMoves): string {
  const head = `--parser strict vs the paper's parser: ${moves.movedRows} of ${moves.rows} cells/rows move`;
  if (moves.moves.length === 0) return `${head}.`;
  const rows = moves.moves.map((move, i) => {
    const delta =
      typeof move.paper !== 'number' &&
      typeof move.strict !== 'number' &&
      move.paper.rate !== null &&
      move.strict.rate !== null
        ? `${((move.strict.rate - move.paper.rate) * 100).toFixed(1)} pp`
        : '';
    return [
      i > 0 && moves.moves[i - 1]!.row === move.row ? '' : move.row,
      move.field,
      show(move.paper),
      show(move.strict),
      delta,
    ];
  });
  const all = [['cell or row', 'field', 'paper parser', 'strict parser', 'Δ rate'], ...rows];
  const widths = all[0]!.map((_, column) => Math.max(...all.map((r) => r[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [`${head}:`, line(all[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
