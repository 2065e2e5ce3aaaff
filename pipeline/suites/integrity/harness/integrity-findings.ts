// Integrity cells as `--fail-on` and `--sarif` see them (issue #31): an ACCEPTED edit is the failing cell.
import type { SarifFinding } from '../../../run/sarif-finding.js';
import type { GateCell } from '../../../run/thresholds.js';
import { editName } from './edits.js';
import type { CellResult, TargetResult } from './integrity-result.js';

/** What `pnpm integrity --fail-on` accepts: the keyword `accepted` is the rule `accepted > 0` over target × edit. */
export const INTEGRITY_GATE = {
  metrics: ['accepted'],
  fields: ['target', 'edit'],
  keywords: { accepted: 'accepted > 0' },
} as const;

/** An integrity cell with its finding when it failed. */
export interface IntegrityGateCell extends GateCell {
  finding: SarifFinding | null;
}

/** `T8:unrevoke` of `T8:unrevoke@v1`. */
const editOf = (cell: CellResult) => cell.attack.replace(/@v\d+$/, '');

/** One gate cell per target × edit: accepted k of n (n 0 when the edit had no verdict), a finding when ACCEPTED. */
export function integrityGateCells(targets: readonly TargetResult[]): IntegrityGateCell[] {
  return targets.flatMap((target) =>
    target.cells.map((cell) => {
      const judged = cell.verdict === 'accepted' || cell.verdict === 'rejected' || cell.verdict === 'reported';
      const accepted = cell.verdict === 'accepted';
      const edit = editOf(cell);
      return {
        identity: { target: target.id, edit },
        counts: { accepted: { k: accepted ? 1 : 0, n: judged ? 1 : 0 } },
        finding: accepted
          ? {
              ruleId: `integrity/${edit}`,
              ruleName: `${edit} ${editName(cell.edit)} accepted`,
              help:
                `Edit ${edit} (${editName(cell.edit)}, integrity.md §3) was made to the stopped store behind its ` +
                'back and the store served the edited state as genuine on restart: it neither rejected nor ' +
                'reported it. Bind records to their place and history (hash chain, signed heads, an off-store witness).',
              level: 'error',
              message: `${target.id}: ${edit} (${cell.attack}) was ACCEPTED${cell.observation ? `: ${cell.observation}` : ''}`,
              identity: { target: target.id, attack: cell.attack },
            }
          : null,
      };
    }),
  );
}
