// Front-door cells as `--fail-on` and `--sarif` see them (issue #31): a surfaced attack is the failing cell.
import type { SarifFinding } from '../../analysis/index.js';
import type { GateCell } from '../thresholds.js';
import type { FrontdoorResults } from './frontdoor-results.js';

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
