// One target measured at two versions in the same run (`inspeximus` and `inspeximus@3.0.0`): the cells side by side,
// and every verdict the version change flipped, which is a finding (issue #28 item 3).
import type { CellResult, IntegrityReport, TargetResult } from '../../pipeline/index.js';

/** A base target and one of its `@<version>` rows, with the cells whose verdict differs. */
export interface VersionPair {
  base: TargetResult;
  other: TargetResult;
  /** `T2` or `T8:unrevoke`, with both verdicts, for every cell both ran whose verdict differs. */
  flips: { cell: string; base: string; other: string }[];
}

const cellName = (cell: CellResult): string => (cell.variant ? `${cell.edit}:${cell.variant}` : cell.edit);
const verdictOf = (cell: CellResult): string => (cell.detection ? `${cell.verdict} (${cell.detection})` : cell.verdict);

/** Every `<id>@<version>` target of the run whose `<id>` ran too, with the verdicts that differ. */
export function versionPairs(report: Pick<IntegrityReport, 'targets'>): VersionPair[] {
  const byId = new Map(report.targets.map((target) => [target.id, target]));
  return report.targets.flatMap((other) => {
    const at = other.id.lastIndexOf('@');
    const base = at > 0 ? byId.get(other.id.slice(0, at)) : undefined;
    if (!base) return [];
    const flips = base.cells.flatMap((cell) => {
      const twin = other.cells.find((candidate) => cellName(candidate) === cellName(cell));
      return twin && verdictOf(twin) !== verdictOf(cell)
        ? [{ cell: cellName(cell), base: verdictOf(cell), other: verdictOf(twin) }]
        : [];
    });
    return [{ base, other, flips }];
  });
}

/** The pairs as Markdown: versions, then each flipped verdict (or that none flipped). */
export function versionPairsMarkdown(pairs: readonly VersionPair[]): string {
  const lines = ['## The same store at two versions', ''];
  for (const { base, other, flips } of pairs) {
    lines.push(`- **${base.id}** (${base.version}) beside **${other.id}** (${other.version}): `);
    lines[lines.length - 1] += flips.length
      ? `${flips.length} verdict(s) flipped with the version, a finding: ${flips.map((flip) => `${flip.cell} ${flip.base} at ${base.id}, ${flip.other} at ${other.id}`).join('; ')}`
      : 'no verdict differs';
  }
  lines.push('');
  return lines.join('\n');
}
