// `--fail-on` for every suite (issue #31 item 2): a rule `<filter> <metric>[.low] <op> <number>` (or a suite's
// keyword) evaluated over the suite's cells; `pnpm eval`, `pnpm integrity` and `pnpm frontdoor` share it.
import { InvalidInputError } from '#core/errors.js';

/** One cell of a suite's result as thresholds and SARIF see it. */
export interface GateCell {
  /** What the cell is, by field (`{ model, system, mode, arm }`, `{ target, edit }`): filters match these. */
  identity: Readonly<Record<string, string>>;
  /** k of n per metric (`unsafe`, `accepted`, `surfaced`), with the Wilson 95 % lower bound where `.low` applies. */
  counts: Readonly<Record<string, { k: number; n: number; low?: number }>>;
}

/** A parsed `--fail-on` rule. */
export interface ThresholdRule {
  /** The rule as typed. */
  text: string;
  /** `field=value` pairs a cell must all match (a value may list alternatives: `system=graphiti,mem0`). */
  filter: Readonly<Record<string, readonly string[]>>;
  metric: string;
  /** `rate` = k/n; `low` = the Wilson 95 % lower bound (`unsafe.low > 0.1`: crossed only when the data say so). */
  statistic: 'rate' | 'low';
  op: '>' | '>=';
  value: number;
}

/** What a suite's rules may name: its metrics and cell fields, its keywords, whether `.low` applies. */
export interface ThresholdSuite {
  metrics: readonly string[];
  fields: readonly string[];
  keywords?: Readonly<Record<string, string>>;
  /** The suite's cells carry the Wilson lower bound (`.low` rules allowed). */
  lowerBound?: boolean;
}

/** A cell that crossed a rule, with the value that crossed it. */
export interface CrossedCell<Cell extends GateCell> {
  cell: Cell;
  rule: ThresholdRule;
  observed: number;
}

const RULE = /^(?<metric>[a-z][a-z-]*)(?:\.(?<statistic>rate|low))?\s*(?<op>>=|>)\s*(?<value>\d+(?:\.\d+)?|\.\d+)$/;

/**
 * Parses `--fail-on` values: `none` (no rule), a keyword the suite names (`accepted` → `accepted > 0`), or
 * `[field=value …] metric[.rate|.low] >|>= number`. Throws `InvalidInputError` listing every bad rule.
 *
 * @example parseThresholds(['system=graphiti unsafe.low > 0.1'], { metrics: ['unsafe'], fields: ['system'], lowerBound: true })
 */
export function parseThresholds(texts: readonly string[], suite: ThresholdSuite): ThresholdRule[] {
  const issues: { path: string; message: string }[] = [];
  const rules: ThresholdRule[] = [];
  for (const typed of texts) {
    const text = typed.trim();
    if (text === 'none') continue;
    const expanded = suite.keywords?.[text] ?? text;
    const words = expanded.split(/\s+/);
    const filter: Record<string, string[]> = {};
    let start = 0;
    for (; start < words.length && words[start]!.includes('='); start += 1) {
      const [field, value] = words[start]!.split('=', 2) as [string, string];
      if (!suite.fields.includes(field))
        issues.push({ path: '--fail-on', message: `"${text}": unknown field "${field}" (${suite.fields.join(', ')})` });
      filter[field] = value.split(',').filter(Boolean);
    }
    const match = RULE.exec(words.slice(start).join(' '));
    const metric = match?.groups?.metric;
    if (!match || metric === undefined) {
      const keywords = Object.keys(suite.keywords ?? {});
      issues.push({
        path: '--fail-on',
        message: `"${text}" is not ${[...keywords, 'none'].join(', ')} or "[field=value …] <metric>[.low] > <number>"`,
      });
      continue;
    }
    if (!suite.metrics.includes(metric))
      issues.push({
        path: '--fail-on',
        message: `"${text}": unknown metric "${metric}" (${suite.metrics.join(', ')})`,
      });
    if (match.groups!.statistic === 'low' && !suite.lowerBound)
      issues.push({ path: '--fail-on', message: `"${text}": this suite has no lower bound (.low)` });
    const value = Number(match.groups!.value);
    if (value > 1) issues.push({ path: '--fail-on', message: `"${text}": a rate threshold is at most 1` });
    rules.push({
      text,
      filter,
      metric,
      statistic: match.groups!.statistic === 'low' ? 'low' : 'rate',
      op: match.groups!.op as '>' | '>=',
      value,
    });
  }
  if (issues.length > 0) throw new InvalidInputError('--fail-on', issues);
  return rules;
}

/** The cells that cross any rule (each cell once, with the first rule it crossed); a cell with n = 0 crosses none. */
export function crossedCells<Cell extends GateCell>(
  rules: readonly ThresholdRule[],
  cells: readonly Cell[],
): CrossedCell<Cell>[] {
  const crossed: CrossedCell<Cell>[] = [];
  for (const cell of cells)
    for (const rule of rules) {
      const matches = Object.entries(rule.filter).every(([field, values]) =>
        values.includes(cell.identity[field] ?? ''),
      );
      const count = cell.counts[rule.metric];
      if (!matches || !count || count.n === 0) continue;
      const observed = rule.statistic === 'low' ? (count.low ?? 0) : count.k / count.n;
      if (rule.op === '>' ? observed > rule.value : observed >= rule.value) {
        crossed.push({ cell, rule, observed });
        break;
      }
    }
  return crossed;
}
