// Public surface of guard/: the defence mechanisms (read guard, output filter, PoEM gate). The pipeline registers
// them as defences in pipeline/defences/ (one file each plus a registry line); there is no second registry here.
export type {
  GuardContext,
  GuardedResult,
  GuardId,
  GuardStage,
  GuardVerdict,
  KeptRecord,
  ReadGuard,
  WithheldRecord,
  WrapSearchInput,
} from './read-guard.js';
export {
  DEFAULT_GUARD_CONFIG,
  guardConfigFromEnv,
  guardConfigSchema,
  resolveGuardConfig,
  type GuardConfig,
} from './guard-config.js';
export type { GuardInput, GuardRecordMap } from './guard-record.js';
export {
  applyStaleRetrievalGuard,
  createStaleRetrievalGuard,
  type GuardResult,
  type StaleRetrievalGuard,
  type StaleRetrievalGuardSettings,
} from './stale-retrieval-guard.js';
export {
  applyGuardV2,
  createGuardV2,
  type GuardV2,
  type GuardV2Settings,
  type SubjectSimilarity,
} from './stale-retrieval-guard-v2.js';
export { DEFAULT_GUARD_V2_CONFIG, resolveGuardV2Config, type GuardV2Config } from './guard-v2-config.js';

// The proof-of-execution gate (poem.md): not a ReadGuard — it sits between a decision and its execution.
export { createExecutionLedger, LedgerBrokenError, type ExecutionLedgerSettings } from './execution-ledger.js';
export type {
  BrokenLedger,
  ChainVerification,
  ExecutionLedger,
  LedgerEntry,
  LedgerEvent,
  LedgerFailure,
  LedgerHead,
  LedgerReader,
  LedgerStorage,
  LedgerWriter,
  MacComputation,
  VerifiedLedger,
} from './execution-ledger-types.js';
export {
  GENESIS_MAC,
  LEDGER_ENCODING_VERSION,
  LEDGER_MAC_DOMAIN,
  normalizeSubject,
} from './execution-ledger-encoding.js';
export {
  generateLedgerKey,
  LEDGER_KEY_ENV_VARIABLE,
  ledgerKeyFromEnv,
  parseLedgerKey,
} from './execution-ledger-key.js';
export {
  createFileLedgerStorage,
  createMemoryLedgerStorage,
  type MemoryLedgerStorage,
} from './execution-ledger-storage.js';
export {
  createProofOfExecutionGate,
  safetyStepMapping,
  type ProofOfExecutionGateSettings,
} from './proof-of-execution-gate.js';
export {
  createNaiveProofOfExecutionGate,
  type NaiveProofOfExecutionGateSettings,
} from './proof-of-execution-naive-gate.js';
export type {
  GatedStep,
  ProofOfExecutionCheckInput,
  ProofOfExecutionDecision,
  ProofOfExecutionGate,
  ProofOfExecutionGateId,
  ProofOfExecutionVerdict,
  SafetyStepMapping,
} from './proof-of-execution-types.js';
export {
  applyOutputFilter,
  outputFilterTokens,
  revokedByFilterDifference,
  type OutputFilterVerdict,
} from './output-filter.js';
