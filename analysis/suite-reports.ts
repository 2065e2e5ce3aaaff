// The renderers `pnpm report` uses for suite run directories, one line per suite (the suite's `report` member).
import type { SuiteReportV1 } from '../pipeline/index.js';
import { frontdoorSuiteReport } from './frontdoor/frontdoor-suite-report.js';
import { integritySuiteReport } from './integrity/integrity-suite-report.js';

/** Renderers by suite id (the `suite` field of a suite run's manifest.json). */
export const SUITE_REPORTS: ReadonlyMap<string, SuiteReportV1<unknown>> = new Map<string, SuiteReportV1<unknown>>([
  ['integrity', integritySuiteReport],
  ['frontdoor', frontdoorSuiteReport],
]);
