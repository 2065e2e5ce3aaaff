// Recomputes every record of a follow-up run (`<experiment>.jsonl`): decision traces per hop and role, tool episodes.
import { join } from 'node:path';
import { normalizeSubject } from '../../guard/execution-ledger-encoding.js';
import { safetyStepMapping } from '../../guard/proof-of-execution-gate.js';
import {
  followUpUnitIdOf,
  type FollowUpRecord,
  type PropagationRecord,
  type ToolsRecord,
  type WritebackRecord,
  type ActionParserId,
} from '../../pipeline/index.js';
import type { ExploitScenario } from '../../scenarios/exploit-scenario.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { RunHead } from '../load-run.js';
import { decisionSlots, decisionSubject, recomputeDecision } from '../recompute-decisions.js';
import { type DifferenceLog, numberedJsonLines } from '../recompute-diff.js';
import { createBackingIndex } from '../recompute-poem.js';
import { recomputeToolsRecord } from '../recompute-tools.js';
import type { ExposureRuleOf, RunScenarios } from '../rescore-inputs.js';

/** What a follow-up recomputation reads besides the run directory. */
export interface FollowUpRecomputeInput {
  run: RunHead;
  scenarios: RunScenarios;
  rules: ReadonlyMap<string, ExposureRuleOf>;
  parser: ActionParserId;
  log: DifferenceLog;
}

/** The recomputed records (last line of a unit wins, in first-seen order, as `loadFollowUpRecords` reads them). */
export interface FollowUpRecomputed {
  records: FollowUpRecord[];
  lines: Record<string, number>;
  oracleSystems: string[];
}

/** Re-derives every line of the run's `<experiment>.jsonl`; differences go to `log` in file order. */
export async function recomputeFollowUp(input: FollowUpRecomputeInput): Promise<FollowUpRecomputed> {
  const { run, scenarios, rules, parser, log } = input;
  const experiment = run.manifest.spec.experiment;
  const file = `${experiment}.jsonl`;
  const lines = numberedJsonLines<FollowUpRecord>(join(run.runDir, file));
  const policy = scenarios.kind === 'policy' ? scenarios.byId : new Map<string, Scenario>();
  const mapping = safetyStepMapping([...policy.values()]);
  const candidates = lines.flatMap(({ row }) => {
    if (row.type === 'tools-end') return [];
    const scenario = policy.get(row.key.scenario);
    if (!scenario) return [];
    return decisionSlots(row, scenario).flatMap((slot) =>
      slot.step !== null && slot.trace.poem?.stepRecorded
        ? [
            {
              subject: normalizeSubject(decisionSubject(row.key, slot.step)),
              owner: `${row.unitId}#${slot.step}`,
              startedAt: row.startedAt,
            },
          ]
        : [],
    );
  });
  const backing = createBackingIndex(candidates);
  const byUnit = new Map<string, FollowUpRecord>();
  const oracleSystems = new Set<string>();
  for (const { line, row } of lines) {
    const where = { file, line, record: row.unitId };
    const scenario = scenarios.byId.get(row.key.scenario);
    const rule = rules.get(row.key.system);
    if (!scenario || !rule)
      throw new Error(
        `${join(run.runDir, file)}:${line ?? '?'}: unit ${row.unitId} names a ${scenario ? 'system' : 'scenario'} the manifest's spec does not list`,
      );
    if (rule.rule === 'oracle' && row.status === 'ok') oracleSystems.add(row.key.system);
    log.compare(where, 'unitId', row.unitId, followUpUnitIdOf(row.key));
    if (row.type === 'tools-end') {
      const exploitScenarios = [...(scenarios.byId as Map<string, ExploitScenario>).values()];
      const context = { rule, scenario, log, where, toolSteps: run.manifest.spec.toolSteps, exploitScenarios };
      byUnit.set(
        row.unitId,
        await recomputeToolsRecord(row as ToolsRecord, { ...context, scenario: scenario as ExploitScenario }),
      );
      continue;
    }
    const copy = structuredClone(row) as WritebackRecord | PropagationRecord;
    const context = {
      rule,
      scenario: scenario as Scenario,
      log,
      where,
      key: row.key,
      parser,
      mapping,
      backs: (subject: string, step: string) => backing.backs(subject, `${row.unitId}#${step}`, row.finishedAt),
    };
    for (const slot of decisionSlots(row, scenario as Scenario)) {
      const trace = await recomputeDecision(slot, context);
      log.compare(where, slot.path, slot.trace, trace);
      slot.set(copy, trace);
    }
    byUnit.set(row.unitId, copy);
  }
  return { records: [...byUnit.values()], lines: { [file]: lines.length }, oracleSystems: [...oracleSystems] };
}
