// The pipeline's public surface for analysis/ (and anything else that reads runs): the run log's data model and
// readers, and the decision protocol that rescore replays. analysis/ imports pipeline/ only through this file
// (pipeline/core/layers.test.ts checks it); nothing here imports analysis/, so the two never form a cycle.

// The run log: manifest, records, ids, readers and the integrity check (pipeline/run-log*.ts, follow-up-log.ts).
export { probeIdOf, runLogVersionProblem, unitIdOf } from './run-log/run-log.js';
export type {
  PoemTrace,
  PriorSafetyStep,
  ProbeRecord,
  RunManifest,
  UnitKey,
  UnitRecord,
} from './run-log/run-log.js';
export { followUpUnitIdOf } from './suites/follow-ups/follow-up-log.js';
export { shardKeyOf, shardOfKey } from './run/shard.js';
export { limitedLine } from './run/unit-limit.js';
export type { LimitedMark } from './run-log/run-log.js';
export type {
  AgentStep,
  AgentTrace,
  DecisionTrace,
  FollowUpKey,
  FollowUpRecord,
  JournalWrite,
  PropagationRecord,
  ReadTrace,
  RoleId,
  ToolsRecord,
  WritebackRecord,
} from './suites/follow-ups/follow-up-log.js';
export type { FrontdoorRecord } from './suites/frontdoor/harness/frontdoor-results.js';
export type { IntegrityRecord } from './suites/integrity/harness/run-integrity.js';
export { checkRunLog, problemText, type RunLogCheck } from './run-log/run-log-verify.js';
export { checkRunSignature, readPublicKey, type SignatureCheck } from './run/run-signature.js';
export { ATTACK_CONDITIONS } from './suites/forged-reasoning/records.js';
export type {
  AttackerAttempt,
  AttackerRecord,
  ForgedReasoningRecord,
  ReasoningDecision,
} from './suites/forged-reasoning/records.js';
export { FORGED_REASONING_FILE, readForgedReasoningRecords } from './suites/forged-reasoning/records.js';
export { forEachJsonLine, jsonLinesOf, readJsonLines, sha256, writeJsonAtomic } from './run-log/json-files.js';
export type { ModelUsage } from './run/usage-totals.js';
export type { ChatMessage } from './models/decision-model.js';
export {
  frontdoorResultsSchema,
  readFrontdoorResults,
  type FrontdoorCell,
  type FrontdoorResults,
} from './suites/frontdoor/harness/frontdoor-results.js';
export type {
  CellResult,
  IntegrityMetric,
  IntegrityReport,
  TargetResult,
} from './suites/integrity/harness/integrity-result.js';
export type { SuiteReportV1 } from './run/suite.js';
export { suiteOfRunDir } from './suites/suite-manifest.js';
export { EXPERIMENTS } from './run/experiments.js';

// The decision protocol, replayed by rescore on stored records: prompts, parsers, arms, the action layer, the tool agent.
export { buildDecisionMessages } from './suites/grid/prompts.js';
export { promptFingerprint } from './suites/grid/prompt-fingerprint.js';
export {
  HOP_TASK,
  ROLE_ORDER,
  buildRoleMessages,
  relapseJournal,
  relapseQuery,
  roleQuery,
  roleTask,
} from './suites/follow-ups/follow-up-prompts.js';
export { ACTION_PARSERS, parseActionStrict, parseReply, type ActionParserId } from './suites/grid/parse-action.js';
export { costOf, loadPrices, priceOf, type PriceTable } from './models/prices.js';
export { isArmId } from './run/arms.js';
export { createActionLayer, subjectOf, type ActionLayer } from './suites/grid/action-layer.js';
export { hasPriorStep, priorStepDesignOf } from './suites/grid/poem-prior-step.js';
export { followUpDefences, isJournalRecord, type LabelScenario } from './suites/follow-ups/follow-up-steps.js';
export { poemHooks, toolArmOf } from './suites/follow-ups/tools.js';
export { runToolAgent, type ChatFunction } from './suites/follow-ups/tools/tool-agent.js';
export { followUpSample } from './models/sample-identity.js';

// The defences (pipeline/defences), re-applied by rescore through the same registry the run used: the registry, a
// unit's composed defences, the screens and post-decision steps with their traces, the grid unit's context, Table 9.
export { defenceOf, defenceStages, screenOf, type DefenceId } from './defences/index.js';
export { AXIS_DEFENCES, flattenDefences, type UnitDefences } from './defences/compose.js';
export {
  AXES,
  type AxisChoice,
  type AxisId,
  axesOf,
  axisChoiceOf,
  axisDefenceId,
  axisCombinations,
  axisOn,
  type CellAxes,
  cellAxes,
  cellAxesId,
  cellAxesOf,
  cellAxesShape,
} from './defences/axes/index.js';
export {
  applyScreens,
  pick,
  screenTraceFields,
  screenTracePath,
  storedScreenTrace,
  type ScreenTraceFields,
} from './defences/screens.js';
export { reviewDecision, reviewTraceFields } from './defences/reviews.js';
export { gridDefences, gridUnitContext, messagesOf, probeReads } from './defences/grid-context.js';
export { HYPOTHETICAL_ORACLE, oracleFilteredRead } from './defences/zep-oracle-filter.js';
export { tableNineWithheld } from './suites/grid/setup-phase.js';
export { exposureOf, labelRecords } from './suites/grid/exposure.js';
export type { SarifFinding } from './run/sarif-finding.js';
