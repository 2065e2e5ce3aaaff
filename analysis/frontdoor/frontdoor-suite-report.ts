// What `pnpm report` writes for a front-door run directory: the scorecard (md, html, json) from its summary, and,
// when the run measured rows of agmi's published front-door table, the two side by side (agmi.md).
import type { FrontdoorResults, SuiteReportV1 } from '../../pipeline/index.js';
import {
  type AgmiFrontDoor,
  agmiFrontDoorMarkdown,
  compareFrontDoorWithAgmi,
  loadAgmiFrontDoor,
} from './agmi-frontdoor-comparison.js';
import { renderFrontdoorHtml, renderFrontdoorMarkdown } from './frontdoor-report.js';

function besideAgmi(results: FrontdoorResults, agmi: AgmiFrontDoor): string | null {
  const comparison = compareFrontDoorWithAgmi(results, agmi);
  return comparison.targets.length > 0 ? agmiFrontDoorMarkdown(comparison) : null;
}

/**
 * The front-door suite's renderers over its summary (the results document `pnpm frontdoor` writes), given agmi's table.
 *
 */
function frontdoorReportWith(agmi: () => AgmiFrontDoor): SuiteReportV1<FrontdoorResults> {
  return {
    suite: 'frontdoor',
    render: (results) => {
      const beside = besideAgmi(results, agmi());
      return {
        'scorecard.md': renderFrontdoorMarkdown(results),
        'scorecard.html': renderFrontdoorHtml(results),
        'scorecard.json': `${JSON.stringify(results, null, 2)}\n`,
        ...(beside ? { 'agmi.md': beside } : {}),
      };
    },
    text: (results) => {
      const beside = besideAgmi(results, agmi());
      return beside ? `${renderFrontdoorMarkdown(results)}\n${beside}` : renderFrontdoorMarkdown(results);
    },
  };
}

/** The front-door suite's renderers, reading data/agmi/front-door.json. */
export const frontdoorSuiteReport: SuiteReportV1<FrontdoorResults> = frontdoorReportWith(() => loadAgmiFrontDoor());
