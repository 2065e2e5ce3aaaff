// Public surface of guard/: read-guard types, the stale-retrieval guard, and the guard registry.
import { UnknownComponentError } from '../core/errors.js';
import type { GuardId, ReadGuard } from './read-guard.js';
import { createStaleRetrievalGuard, type StaleRetrievalGuardSettings } from './stale-retrieval-guard.js';

export type { GuardContext, GuardedResult, GuardId, GuardStage, GuardVerdict, KeptRecord, ReadGuard, WithheldRecord, WrapSearchInput } from './read-guard.js';
export { DEFAULT_GUARD_CONFIG, guardConfigFromEnv, guardConfigSchema, resolveGuardConfig, type GuardConfig } from './guard-config.js';
export type { GuardInput, GuardRecordMap } from './guard-record.js';
export {
  applyStaleRetrievalGuard,
  createStaleRetrievalGuard,
  type GuardResult,
  type StaleRetrievalGuard,
  type StaleRetrievalGuardSettings,
} from './stale-retrieval-guard.js';

/** One line per guard: its factory. Settings are validated by the factory (zod; unknown keys rejected). */
const GUARD_FACTORIES: Record<string, (settings: unknown) => ReadGuard> = {
  'stale-retrieval': (settings) => createStaleRetrievalGuard((settings ?? {}) as StaleRetrievalGuardSettings),
};

/** Every registered guard id. */
export const GUARD_IDS: readonly GuardId[] = Object.keys(GUARD_FACTORIES);

/**
 * Creates a registered guard. Throws `UnknownComponentError` for an unknown id and `InvalidInputError` for bad settings.
 *
 * @example const guard = createGuard('stale-retrieval', { maxWithheldRatio: 0.6 });
 */
export function createGuard(id: string, settings: unknown = {}): ReadGuard {
  const create = Object.hasOwn(GUARD_FACTORIES, id) ? GUARD_FACTORIES[id] : undefined;
  if (!create) throw new UnknownComponentError('guard', id, GUARD_IDS);
  return create(settings);
}

// The proof-of-execution gate (poem.md): not a ReadGuard — it sits between a decision and its execution.
export { createExecutionLedger, LedgerBrokenError, type ExecutionLedgerSettings } from './execution-ledger.js';
export type { BrokenLedger, ChainVerification, ExecutionLedger, LedgerEntry, LedgerEvent, LedgerFailure, LedgerHead, LedgerReader, LedgerStorage, LedgerWriter, MacComputation, VerifiedLedger } from './execution-ledger-types.js';
export { GENESIS_MAC, LEDGER_ENCODING_VERSION, LEDGER_MAC_DOMAIN, normalizeSubject } from './execution-ledger-encoding.js';
export { generateLedgerKey, LEDGER_KEY_ENV_VARIABLE, ledgerKeyFromEnv, parseLedgerKey } from './execution-ledger-key.js';
export { createFileLedgerStorage, createMemoryLedgerStorage, type MemoryLedgerStorage } from './execution-ledger-storage.js';
export { createProofOfExecutionGate, safetyStepMapping, type ProofOfExecutionGateSettings } from './proof-of-execution-gate.js';
export { createNaiveProofOfExecutionGate, type NaiveProofOfExecutionGateSettings } from './proof-of-execution-naive-gate.js';
export type { GatedStep, ProofOfExecutionCheckInput, ProofOfExecutionDecision, ProofOfExecutionGate, ProofOfExecutionGateId, ProofOfExecutionVerdict, SafetyStepMapping } from './proof-of-execution-types.js';
export { applyOutputFilter, outputFilterTokens, revokedByFilterDifference, type OutputFilterVerdict } from './output-filter.js';
