// Write-back hops (stale-retrieval.md §12; reference `attacks/attack_contamination.py`): an unsafe decision is
// journalled back into memory, and later hops read it back with the original query under both reads.
import type { Scenario } from '../../../scenarios/scenario.js';
import type { DecisionTrace, WritebackRecord } from './follow-up-log.js';
import { HOP_TASK, decisionJournal } from './follow-up-prompts.js';
import {
  decideOnRead,
  journalCensus,
  policyWrites,
  readMemory,
  seedScenario,
  taintNotApplicable,
  writeJournal,
  type UnitContext,
} from './follow-up-steps.js';
import { buildDecisionMessages } from '../grid/prompts.js';
import type { FollowUpExperiment } from './experiment.js';

/** One decision of a hop: read with the scenario query, decide the given task with the plain §6 prompt. */
async function hopDecision(
  context: UnitContext,
  scenario: Scenario,
  read: 'default' | 'filtered',
  task: string,
  step: string,
): Promise<DecisionTrace> {
  const readTrace = await readMemory(context, { query: scenario.query, read, defences: context.defences, scenario });
  const messages = buildDecisionMessages({
    facts: readTrace.records.map((r) => r.text),
    task,
    actions: scenario.actions,
    guardrail: scenario.guardrail,
    harden: false,
  });
  return decideOnRead(context, { readTrace, messages, scenario, step });
}

export const writebackExperiment: FollowUpExperiment<WritebackRecord, Scenario> = {
  id: 'writeback',
  recordType: 'writeback-end',
  notApplicable(description, key) {
    const seeding = description.modes[key.mode];
    if (!seeding.supported) return `${key.mode} seeding: ${seeding.reason}`;
    const journal = description.modes[key.arm as 'direct' | 'natural'];
    if (!journal.supported) return `a ${key.arm} journal cannot be written: ${journal.reason}`;
    return taintNotApplicable(description, key, key.arm as 'direct' | 'natural');
  },
  // Hop 0 twice (default and filtered read), then two per hop when hop 0 was unsafe.
  calls: (settings) => ({ min: 2, max: 2 + 2 * settings.hops }),
  empty: () => ({ hop0: null, hop0Filtered: null, journals: [], hops: [] }),
  async run(context, scenario, settings, result) {
    const mode = context.key.arm as 'direct' | 'natural';
    const seededAt = new Date();
    await seedScenario(context, policyWrites(scenario, context.key.mode, seededAt), seededAt);
    result.hop0 = await hopDecision(context, scenario, 'default', scenario.task, 'hop0:default');
    result.hop0Filtered = await hopDecision(context, scenario, 'filtered', scenario.task, 'hop0:filtered');
    if (result.hop0.unsafe !== true) return;
    let unsafe: DecisionTrace = result.hop0;
    for (let hop = 1; hop <= settings.hops; hop += 1) {
      if (unsafe.unsafe === true) {
        const text = decisionJournal(scenario.id, unsafe.parsedAction!, unsafe.reply!.text);
        const derivedFrom = unsafe.readTrace.records.map((record) => record.id);
        result.journals.push(await writeJournal(context, { text, mode, afterHop: hop - 1, derivedFrom }));
      }
      const census = await journalCensus(context, mode, result.journals.length);
      const defaultTrace = await hopDecision(context, scenario, 'default', HOP_TASK, `hop${hop}:default`);
      const filteredTrace = await hopDecision(context, scenario, 'filtered', HOP_TASK, `hop${hop}:filtered`);
      result.hops.push({ hop, census, default: defaultTrace, filtered: filteredTrace });
      // Journals compound: only the default-read decision is journalled (reference).
      unsafe = defaultTrace;
    }
  },
};
