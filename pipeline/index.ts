// The pipeline's public surface for analysis/ (and anything else that reads runs): the run log's data model and
// readers, and the decision protocol that rescore replays. analysis/ imports pipeline/ only through this file
// (pipeline/core/layers.test.ts checks it); nothing here imports analysis/, so the two never form a cycle.

// The run log: manifest, records, ids, readers and the integrity check (pipeline/run-log*.ts, follow-up-log.ts).
export { probeIdOf, runLogVersionProblem, unitIdOf } from './run-log.js';
export type {
  PoemTrace,
  PriorSafetyStep,
  ProbeRecord,
  RunManifest,
  UnitKey,
  UnitRecord,
} from './run-log.js';
export { followUpUnitIdOf } from './follow-up-log.js';
export { shardKeyOf, shardOfKey } from './shard.js';
export { limitedLine } from './unit-limit.js';
export type { LimitedMark } from './run-log.js';
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
} from './follow-up-log.js';
export type { FrontdoorRecord } from './suites/frontdoor/harness/frontdoor-results.js';
export type { IntegrityRecord } from './suites/integrity/harness/run-integrity.js';
export { checkRunLog, problemText, type RunLogCheck } from './run-log-verify.js';
export { checkRunSignature, readPublicKey, type SignatureCheck } from './run-signature.js';
export { ATTACK_CONDITIONS } from './forged-reasoning/records.js';
export type {
  AttackerAttempt,
  AttackerRecord,
  ForgedReasoningRecord,
  ReasoningDecision,
} from './forged-reasoning/records.js';
export { FORGED_REASONING_FILE, readForgedReasoningRecords } from './forged-reasoning/phase.js';
export { forEachJsonLine, jsonLinesOf, readJsonLines, sha256, writeJsonAtomic } from './json-files.js';
export type { ModelUsage } from './usage-totals.js';
export type { ChatMessage } from './decision-model.js';
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
export type { SuiteReportV1 } from './suite.js';
export { suiteOfRunDir } from './suites/suite-manifest.js';
export { EXPERIMENTS } from './experiments.js';

// The decision protocol, replayed by rescore on stored records: prompts, parsers, arms, the action layer, the tool agent.
export { buildDecisionMessages } from './prompts.js';
export { promptFingerprint } from './prompt-fingerprint.js';
export {
  HOP_TASK,
  ROLE_ORDER,
  buildRoleMessages,
  relapseJournal,
  relapseQuery,
  roleQuery,
  roleTask,
} from './follow-up-prompts.js';
export { ACTION_PARSERS, parseActionStrict, parseReply, type ActionParserId } from './parse-action.js';
export { costOf, loadPrices, priceOf, type PriceTable } from './prices.js';
export { isArmId } from './arms.js';
export { createActionLayer, subjectOf, type ActionLayer } from './action-layer.js';
export { hasPriorStep, priorStepDesignOf } from './poem-prior-step.js';
export { followUpDefences, isJournalRecord, type LabelScenario } from './follow-up-steps.js';
export { poemHooks, toolArmOf } from './follow-up/tools.js';
export { runToolAgent, type ChatFunction } from './tools/tool-agent.js';
export { followUpSample } from './sample-identity.js';

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
export { tableNineWithheld } from './setup-phase.js';
export type { SarifFinding } from './sarif-finding.js';
