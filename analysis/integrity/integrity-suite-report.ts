// What `pnpm report` writes for an integrity run directory: the scorecard (md, html, json), the full report, and,
// when the run measured rows of agmi's published table, the two side by side (agmi.md).
import type { IntegrityReport, SuiteReportV1 } from '../../pipeline/index.js';
import { type AgmiAtRest, agmiComparisonMarkdown, compareWithAgmi, loadAgmiAtRest } from './agmi-comparison.js';
import { integrityJson, integrityMarkdown } from './integrity-report.js';
import { versionPairs, versionPairsMarkdown } from './integrity-versions.js';
import { scorecardHtml, scorecardMarkdown } from './integrity-scorecard.js';

/** agmi's table beside the run, or null when no target of the run measures one of its rows. */
function besideAgmi(report: IntegrityReport, agmi: AgmiAtRest): string | null {
  const comparison = compareWithAgmi(report, agmi);
  return comparison.targets.length > 0 ? agmiComparisonMarkdown(comparison) : null;
}

/** The targets measured at two versions, or null when the run has no `<id>` beside an `<id>@<version>`. */
function besideVersions(report: IntegrityReport): string | null {
  const pairs = versionPairs(report);
  return pairs.length > 0 ? versionPairsMarkdown(pairs) : null;
}

/**
 * The integrity suite's renderers over its summary (the report `pnpm integrity` prints), given agmi's table.
 *
 */
function integrityReportWith(agmi: () => AgmiAtRest): SuiteReportV1<IntegrityReport> {
  return {
    suite: 'integrity',
    render: (report) => {
      const beside = besideAgmi(report, agmi());
      const versions = besideVersions(report);
      return {
        'scorecard.md': scorecardMarkdown(report),
        'scorecard.html': scorecardHtml(report),
        'scorecard.json': `${JSON.stringify(integrityJson(report), null, 2)}\n`,
        'integrity.md': `${integrityMarkdown(report)}\n`,
        ...(beside ? { 'agmi.md': beside } : {}),
        ...(versions ? { 'versions.md': versions } : {}),
      };
    },
    text: (report) => {
      const extra = [besideVersions(report), besideAgmi(report, agmi())].filter((part) => part !== null);
      return [scorecardMarkdown(report), ...extra].join('\n');
    },
  };
}

/** The integrity suite's renderers, reading data/agmi/at-rest.json. */
export const integritySuiteReport: SuiteReportV1<IntegrityReport> = integrityReportWith(() => loadAgmiAtRest());
