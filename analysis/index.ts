// The public summarising entry of analysis/: what the pipeline's commands print and write when a run ends (the grid
// and follow-up summaries and tables, the integrity and front-door reports). pipeline/ imports analysis/ only through
// this file (pipeline/core/layers.test.ts checks it).
export { loadRun, readRunHead, readRunRecords, summarizeRun, summarizeStoredRun } from './load-run.js';
export type { RunHead } from './load-run.js';
export { SUMMARY_VERSION, summaryRecordOf, type Summary, type SummaryRecord } from './grid/summarize.js';
export { formatSummaryTable } from './format-table.js';
export type { FollowUpSummary } from './follow-ups/follow-up-summary.js';
export { summarizeFollowUp } from './follow-ups/run-kind.js';
export { formatFollowUpSummary } from './follow-ups/format-follow-up.js';
export { type ForgedReasoningSummary, summarizeForgedReasoning } from './forged-reasoning/forged-reasoning-summary.js';
export { formatForgedReasoningSummary } from './forged-reasoning/format-forged-reasoning.js';
export { integrityJson, integrityMarkdown } from './integrity/integrity-report.js';
export { scorecardHtml, scorecardMarkdown } from './integrity/integrity-scorecard.js';
export { renderFrontdoorMarkdown, writeFrontdoorScorecards } from './frontdoor/frontdoor-report.js';
export { frontdoorSuiteReport } from './frontdoor/frontdoor-suite-report.js';
export { integritySuiteReport } from './integrity/integrity-suite-report.js';
export { sarifLog, type SarifTool } from './sarif.js';
export { GRID_CELL_FIELDS, gridFindings } from './grid/grid-findings.js';
