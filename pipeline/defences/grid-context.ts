// A grid unit's context as its defences shape it: the read from the probe, the screens, the exact messages. The run,
// `--dry-run` and `pnpm rescore` all build it here.
import type { MemoryRecord } from '../../backends/memory-backend.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { ChatMessage } from '../models/decision-model.js';
import { buildDecisionMessages } from '../suites/grid/prompts.js';
import type { ProbeRecord, UnitKey, UnitRecord } from '../run-log/run-log.js';
import { AXES, axisOn, type UnitKeyAxes } from './axes/index.js';
import { unitDefences, type UnitDefences } from './compose.js';
import type { DefenceId, ReviewInput } from './defence-v1.js';
import { applyScreens, pick, screenTraceFields } from './screens.js';
import { oracleFilteredRead } from './zep-oracle-filter.js';
import { UnsupportedFeatureError } from '#core/errors.js';

/** The defences of a grid unit: its arm, then the axes on in its key (pipeline/defences/axes), in registry order. */
export function gridDefences(
  key: Pick<UnitKey, 'arm'> & Partial<UnitKeyAxes>,
  settings?: Readonly<Record<string, unknown>>,
): UnitDefences {
  const axes = Object.fromEntries(AXES.map((axis) => [axis.id, axisOn(key, axis.id)]));
  return unitDefences({ uses: [key.arm], ...axes, ...(settings ? { settings } : {}) });
}

/** `messages` with `prefix` in front of the system message (unchanged for ''). */
export function withSystemPrefix(messages: ChatMessage[], prefix: string): ChatMessage[] {
  if (prefix === '') return messages;
  return messages.map((message) =>
    message.role === 'system' ? { ...message, content: prefix + message.content } : message,
  );
}

/**
 * The unit's context record and its exact messages: the filtered read when a defence asks for it and the system has
 * one (else the default read), the screens with `clockOf(id)`, then the §6.1 prompt with the defences' prefixes.
 */
export function gridUnitContext(
  scenario: Scenario,
  probe: ProbeRecord,
  defences: UnitDefences,
  clockOf: (id: DefenceId) => Date,
): { context: UnitRecord['context']; messages: ChatMessage[] } {
  const useFiltered = defences.read === 'filtered' && probe.filteredRead != null;
  const oracle = defences.read === 'oracle-filtered' ? oracleFilteredRead(probe) : null;
  if (defences.read === 'oracle-filtered' && oracle === null)
    throw new UnsupportedFeatureError(
      `${probe.system} reads`,
      'the oracle filter',
      defences.requiresOracle ?? undefined,
    );
  // The oracle's filtered read holds only records its labels mark current.
  const read: readonly MemoryRecord[] = oracle ?? (useFiltered ? probe.filteredRead : probe.defaultRead) ?? [];
  const readLabels = oracle
    ? oracle.map(() => false)
    : ((useFiltered ? probe.filteredLabels : probe.defaultLabels) ?? []);
  // Only a unit whose defences consult the ledger sees its verdicts (the guard alone stays the guard of Table 9).
  const ledger = defences.ledger ? (useFiltered ? probe.ledger?.filtered : probe.ledger?.default) : undefined;
  const { kept, traces } = applyScreens(read, defences.screens, clockOf, ledger ?? undefined);
  const records = pick(read, kept);
  const labels = pick(readLabels, kept);
  const context = {
    read: defences.read,
    records,
    labels,
    exposed: labels.some(Boolean),
    extractor: probe.extractor ?? 'none',
    ...screenTraceFields(traces),
  };
  return { context, messages: decisionMessagesOf(records, scenario, defences) };
}

/** The §6.1 messages a unit sends for the `records` its context hands to the model, with the defences' prefixes. */
function decisionMessagesOf(
  records: readonly Pick<MemoryRecord, 'text'>[],
  scenario: Pick<Scenario, 'task' | 'actions' | 'guardrail'>,
  defences: Pick<UnitDefences, 'systemPrefix'>,
): ChatMessage[] {
  const plain = buildDecisionMessages({
    facts: records.map((r) => r.text),
    task: scenario.task,
    actions: scenario.actions,
    guardrail: scenario.guardrail,
    harden: false,
  });
  return withSystemPrefix(plain, defences.systemPrefix);
}

/**
 * The exact messages a stored grid unit sent, rebuilt byte for byte from its stored context (the records its arm
 * handed to the model), its key (the defences' prefixes) and its scenario, with this code's prompts: the run's
 * `promptSha256` is the sha256 of their JSON when the manifest's prompt fingerprint is this code's (`pnpm rescore
 * --check` checks both).
 *
 * @example sha256(JSON.stringify(messagesOf(record, scenario))) === record.promptSha256
 */
export function messagesOf(
  record: Pick<UnitRecord, 'key' | 'context'>,
  scenario: Pick<Scenario, 'task' | 'actions' | 'guardrail'>,
): ChatMessage[] {
  return decisionMessagesOf(record.context.records, scenario, gridDefences(record.key));
}

/** The texts of a probe's two reads, for post-decision steps that compare them (the output filter). */
export function probeReads(probe: ProbeRecord): NonNullable<ReviewInput['reads']> {
  return {
    default: (probe.defaultRead ?? []).map((r) => r.text),
    filtered: probe.filteredRead?.map((r) => r.text) ?? null,
    oracleFiltered: oracleFilteredRead(probe)?.map((r) => r.text) ?? null,
  };
}
