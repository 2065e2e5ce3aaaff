// What `pnpm report` writes for an integrity run directory: the scorecard (md, html, json) and the full report.
import type { IntegrityReport, SuiteReportV1 } from '../pipeline/index.js';
import { integrityJson, integrityMarkdown } from './integrity-report.js';
import { scorecardHtml, scorecardMarkdown } from './integrity-scorecard.js';

/** The integrity suite's renderers, over its summary (the report `pnpm integrity` prints). */
export const integritySuiteReport: SuiteReportV1<IntegrityReport> = {
  suite: 'integrity',
  render: (report) => ({
    'scorecard.md': scorecardMarkdown(report),
    'scorecard.html': scorecardHtml(report),
    'scorecard.json': `${JSON.stringify(integrityJson(report), null, 2)}\n`,
    'integrity.md': `${integrityMarkdown(report)}\n`,
  }),
  text: (report) => scorecardMarkdown(report),
};
