// The front-door results file: one versioned JSON document every scorecard (Markdown, HTML, JSON) is generated from;
// its cells as `--fail-on` and `--sarif` see them (issue #31).
import { z } from 'zod';
import { InvalidInputError } from '#core/errors.js';
import { readJsonFile } from '../../../run-log/json-files.js';
import { crossedCells, parseThresholds, type GateCell } from '../../../run/thresholds.js';
import type { SarifFinding } from '../../../run/sarif-finding.js';

const verdict = z.enum(['surfaced', 'kept out', 'n/a']);
const count = z.number().int().nonnegative();

const cellSchema = z.object({
  /** `<attack>@v<version>`: cells of different versions are never compared. */
  attack: z.string().regex(/^[a-z_]+@v\d+$/),
  /** `surfaced` when any channel surfaced; else `n/a` when any control failed; else `kept out`. */
  verdict,
  /** Per channel, the same rule over its fixtures and variants. */
  channels: z.record(z.string(), verdict),
  /** Fixtures on which the attacker's memory surfaced on any channel and variant, of all fixtures. */
  fixtures: z.object({ fell: count, total: count }),
  /** Fixtures fallen, hijack ranks, the channel and mutation that got through, n/a reasons, measurement notes. */
  detail: z.string(),
  /** 2: write access to the memory API (agmi's level for the front door). */
  attackerLevel: z.literal(2),
  /** The variants measured: `base` plus every mutation when `--mutate`. */
  variants: z.array(z.string()).min(1),
  /** Trials run (fixtures × channels × variants, less variants that did not apply). */
  trials: count,
});

const targetSchema = z.object({
  id: z.string(),
  /** The library and version measured, and whether it is the real library, a port or a model. */
  version: z.string(),
  /** The embedder the row was measured with; says `lexical embedder (not a real embedder)` where that matters. */
  embedder: z.string(),
  /** The system's own one-line description. */
  summary: z.string(),
  cells: z.array(cellSchema),
});

/** The front-door results document, version 1 (`summary.json` and `results.json` of a run, `--json`). */
export const frontdoorResultsSchema = z.object({
  version: z.literal(1),
  tool: z.literal('stalebench frontdoor'),
  createdAt: z.string(),
  channels: z.array(z.string()),
  variants: z.array(z.string()),
  targets: z.array(targetSchema),
});

export type FrontdoorCell = z.infer<typeof cellSchema>;
export type FrontdoorTargetRow = z.infer<typeof targetSchema>;
export type FrontdoorResults = z.infer<typeof frontdoorResultsSchema>;

/** Reads and validates a results file; a bad one names the file and every problem. */
export function readFrontdoorResults(path: string): FrontdoorResults {
  const parsed = frontdoorResultsSchema.safeParse(readJsonFile<unknown>(path));
  if (!parsed.success)
    throw new InvalidInputError(
      path,
      parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    );
  return parsed.data;
}

/**
 * The exit code of a run: 2 when every cell is n/a, else 1 when a cell crossed a `failOn` rule (`surfaced`: the rule
 * `surfaced > 0` of pipeline/run/thresholds.ts), else 0.
 */
export function frontdoorExitCode(results: FrontdoorResults, failOn: FrontdoorFailOn): 0 | 1 | 2 {
  const cells = results.targets.flatMap((target) => target.cells);
  if (cells.length === 0 || cells.every((cell) => cell.verdict === 'n/a')) return 2;
  const rules = parseThresholds(typeof failOn === 'string' ? [failOn] : failOn, FRONTDOOR_GATE);
  return crossedCells(rules, frontdoorGateCells(results)).length > 0 ? 1 : 0;
}

/**
 * What `--fail-on` selects: `surfaced` (the rule `surfaced > 0`), `none` (default), or the rules of several flags or
 * a rule file (`@<file>`), e.g. `attack=memory_injection surfaced > 0`. A lone keyword stays a string, as run
 * directories have always recorded it.
 */
export type FrontdoorFailOn = 'surfaced' | 'none' | readonly string[];

/** What `pnpm frontdoor --fail-on` accepts: the keyword `surfaced` is the rule `surfaced > 0` over target × attack. */
export const FRONTDOOR_GATE = {
  metrics: ['surfaced'],
  fields: ['target', 'attack'],
  keywords: { surfaced: 'surfaced > 0' },
} as const;

/** A front-door cell with its finding when the attacker's memory surfaced. */
export interface FrontdoorGateCell extends GateCell {
  finding: SarifFinding | null;
}

/** One gate cell per target × attack: surfaced k of n (n 0 for an n/a cell), a finding when surfaced. */
export function frontdoorGateCells(results: FrontdoorResults): FrontdoorGateCell[] {
  return results.targets.flatMap((target) =>
    target.cells.map((cell) => {
      const attack = cell.attack.replace(/@v\d+$/, '');
      const surfaced = cell.verdict === 'surfaced';
      return {
        identity: { target: target.id, attack },
        counts: { surfaced: { k: surfaced ? 1 : 0, n: cell.verdict === 'n/a' ? 0 : 1 } },
        finding: surfaced
          ? {
              ruleId: `frontdoor/${attack}`,
              ruleName: `${attack.replaceAll('_', ' ')} surfaced`,
              help:
                `An attacker with write access to the memory API (level 2) stored a memory by the ${attack} attack ` +
                'and it surfaced in a victim read. Scope reads to their owner and session, check provenance at ' +
                'write time, and keep untrusted memories out of instructions.',
              level: 'error',
              message: `${target.id}: ${cell.attack} surfaced on ${cell.fixtures.fell}/${cell.fixtures.total} fixtures (${cell.detail})`,
              identity: { target: target.id, attack: cell.attack },
            }
          : null,
      };
    }),
  );
}

/** One line of records.jsonl: the cell as the results document holds it, and the row's columns of its target. */
export interface FrontdoorRecord {
  target: string;
  version: string;
  embedder: string;
  summary: string;
  cell: FrontdoorCell;
}
