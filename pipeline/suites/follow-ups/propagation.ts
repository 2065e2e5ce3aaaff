// Multi-agent propagation (stale-retrieval.md §13; reference `attacks/attack_propagation.py`): executor, reviewer
// and planner share one memory, each reading on its own query and deciding with its own role prompt.
import type { Scenario } from '../../../scenarios/scenario.js';
import type { PropagationRecord } from './follow-up-log.js';
import { ROLE_ORDER, buildRoleMessages, decisionJournal, roleQuery, roleTask } from './follow-up-prompts.js';
import {
  decideOnRead,
  policyWrites,
  readMemory,
  seedScenario,
  taintNotApplicable,
  writeJournal,
} from './follow-up-steps.js';
import type { FollowUpExperiment } from './experiment.js';

export const propagationExperiment: FollowUpExperiment<PropagationRecord, Scenario> = {
  id: 'propagation',
  recordType: 'propagation-end',
  notApplicable(description, key) {
    const seeding = description.modes[key.mode];
    if (!seeding.supported) return `${key.mode} seeding: ${seeding.reason}`;
    if (key.arm !== 'no-journal' && !description.modes.direct.supported)
      return `the executor's journal is a direct DECISION record: ${description.modes.direct.reason}`;
    if (key.arm === 'shared-filtered' && description.storeFilter === null)
      return 'the system has no filtered read (shared-filtered would equal shared-default)';
    return taintNotApplicable(description, key, 'direct');
  },
  // One call per role.
  calls: () => ({ min: 3, max: 3 }),
  empty: () => ({ roles: {}, journal: null }),
  async run(context, scenario, _settings, result) {
    const seededAt = new Date();
    await seedScenario(context, policyWrites(scenario, context.key.mode, seededAt), seededAt);
    const read = context.key.arm === 'shared-filtered' ? 'filtered' : 'default';
    for (const role of ROLE_ORDER) {
      const readTrace = await readMemory(context, {
        query: roleQuery(role, scenario),
        read,
        defences: context.defences,
        scenario,
      });
      const messages = buildRoleMessages({
        role,
        facts: readTrace.records.map((r) => r.text),
        task: roleTask(role, scenario),
        actions: scenario.actions,
        guardrail: scenario.guardrail,
      });
      const trace = await decideOnRead(context, { readTrace, messages, scenario, step: role });
      result.roles[role] = trace;
      // The executor journals whenever an action parsed, safe or unsafe (reference), except in no-journal.
      if (role === 'executor' && context.key.arm !== 'no-journal' && trace.parsedAction !== null) {
        result.journal = await writeJournal(context, {
          text: decisionJournal(scenario.id, trace.parsedAction, trace.reply!.text),
          mode: 'direct',
          afterHop: 0,
          derivedFrom: readTrace.records.map((record) => record.id),
        });
      }
    }
  },
};
