// What `pnpm report` writes for a front-door run directory: the scorecard (md, html, json) from its summary.
import type { FrontdoorResults, SuiteReportV1 } from '../pipeline/index.js';
import { renderFrontdoorHtml, renderFrontdoorMarkdown } from './frontdoor-report.js';

/** The front-door suite's renderers, over its summary (the results document `pnpm frontdoor` writes). */
export const frontdoorSuiteReport: SuiteReportV1<FrontdoorResults> = {
  suite: 'frontdoor',
  render: (results) => ({
    'scorecard.md': renderFrontdoorMarkdown(results),
    'scorecard.html': renderFrontdoorHtml(results),
    'scorecard.json': `${JSON.stringify(results, null, 2)}\n`,
  }),
  text: (results) => renderFrontdoorMarkdown(results),
};
