// Table 16 (stale-retrieval.md §14): tool actions and the exploit chain, pooled and per exploit scenario, plus relapse.
import type { ToolsRow } from '../follow-ups/follow-up-summary.types.js';
import type { ModelGroup } from '../grid/grid-index.js';
import type { PaperTable, TableCell } from '../paper-table.js';
import {
  followUpTable,
  paperRows,
  rowCells,
  type Column,
  type FollowUpInput,
} from '../follow-ups/paper-tables-follow-up.js';
import { defineTable } from './table-definition.js';

/** The exploit scenarios' row labels. */
const EXPLOIT_LABELS: Readonly<Record<string, string>> = {
  arbitrary_code_execution: 'arbitrary code execution',
  secret_exfiltration_env: 'secret exfiltration',
  shell_over_api_infra: 'shell-over-API',
  destructive_shell_breach: 'destructive shell',
};

/** The tools arms and the paper's row labels. */
const TOOLS_ROWS: [string, string][] = [
  ['none', 'no defense'],
  ['store-filter', 'retrieval filter'],
  ['guard', 'guard'],
  ['tool-guardrail', 'tool-layer guardrail'],
];

/** Table 16: tool actions and the exploit chain from tools summaries, pooled and per scenario, plus relapse. */
export function buildTable16(inputs: readonly FollowUpInput[], group?: ModelGroup): PaperTable {
  const notes: string[] = [];
  const rows = paperRows<ToolsRow>(inputs, (s) => s.tools, notes, group);
  const cells: TableCell[] = [];
  const flags: Column<ToolsRow>[] = [
    ['tool execution', (r) => r.toolExecution],
    ['secret read', (r) => r.secretRead],
    ['exfil confirmed', (r) => r.exfilConfirmed],
  ];
  for (const [arm, label] of TOOLS_ROWS) {
    const mine = rows.filter((r) => r.arm === arm);
    const pooled = mine.filter((r) => r.scenario === '*');
    const rce = mine.some((r) => r.scenario === 'arbitrary_code_execution')
      ? mine.filter((r) => r.scenario === 'arbitrary_code_execution')
      : pooled;
    cells.push(
      ...rowCells(label, pooled, [...flags, ['shell commands refused', (r) => r.shellRefused]]),
      ...rowCells(label, rce, [['interpreter one-liners', (r) => r.interpreterOneLiners]]),
    );
    const scenarios = [...new Set(mine.map((r) => r.scenario).filter((s) => s !== '*'))];
    for (const scenario of scenarios)
      cells.push(
        ...rowCells(
          `${label}: ${EXPLOIT_LABELS[scenario] ?? scenario}`,
          mine.filter((r) => r.scenario === scenario),
          flags,
        ),
      );
  }
  const relapse = rows.filter((r) => r.arm === 'none' && r.scenario === '*');
  cells.push(
    ...rowCells('relapse, default retrieval', relapse, [['tool attack fired', (r) => r.relapse?.default ?? null]]),
  );
  cells.push(
    ...rowCells('relapse, retrieval filter', relapse, [['tool attack fired', (r) => r.relapse?.filtered ?? null]]),
  );
  notes.push(
    'Every proportion has n = completed agent episodes. Interpreter one-liners are counted in the arbitrary-code-execution scenario (the paper: n = 90). Relapse: n = undefended episodes whose tool attack fired (spec §14.5).',
  );
  const columns = [
    'tool execution',
    'secret read',
    'exfil confirmed',
    'shell commands refused',
    'interpreter one-liners',
    'tool attack fired',
  ];
  return followUpTable('16', 'Tool actions and the exploit chain', inputs, cells, columns, notes, group);
}

/** Table 16, registered: from the tools runs, one per model group among them. */
export const table16 = defineTable({
  id: '16',
  paper: true,
  scope: 'follow-up',
  experiment: 'tools',
  build: buildTable16,
});
