// The grid's plan (`--dry-run`, the cost confirmation): every unit's exact prompt, built from the run's stored probes
// when it has them, else from probes taken now on the embedded engine in a temporary directory (removed afterwards).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultEngineSpec, defaultEngines } from '../../../backends/engines.js';
import { loadBackend } from '../../../backends/index.js';
import type { ChatMessage } from '../../models/decision-model.js';
import { gridSample } from '../../models/sample-identity.js';
import { forEachJsonLine, readJsonLines, writeJsonAtomic } from '../../run-log/json-files.js';
import { probeIdOf, RUN_LOG_VERSION, type ProbeRecord, type UnitRecord } from '../../run-log/run-log.js';
import { modelPlan, type PlanInput, type PlanRow, type RunPlan } from '../../run/run-plan.js';
import { inShard } from '../../run/shard.js';
import { unitContext } from './experiment-phase.js';
import { gridArgsOf, gridSuite } from './suite.js';
import { runSetupPhase } from './setup-phase.js';

/** The grid's plan: one row per (system, mode, arm), exact calls and cache hits per unit. */
export async function planGrid(input: PlanInput): Promise<RunPlan> {
  const { spec } = input;
  const notes: string[] = [];
  const probes = await probesFor(input, notes);
  const ids = { scenarios: input.scenarios.map((s) => s.id), models: input.models.map((m) => m.description.id) };
  const plan = gridSuite.plan(gridArgsOf(spec, ids, probes));
  // Whether each recorded unit is done (a recorded error runs again under --retry-errors), read a line at a time: a
  // resumed 45k grid's records are never all held.
  const done = new Map<string, boolean>();
  forEachJsonLine<UnitRecord>(join(input.runDir, 'records.jsonl'), (record) =>
    done.set(record.unitId, !(spec.retryErrors && gridSuite.rerun(record))),
  );
  const scenarios = new Map(input.scenarios.map((s) => [s.id, s]));
  const rows = new Map<string, PlanRow>();
  const calls = new Map<string, { messages: ChatMessage[][]; cached: number }>();
  const now = new Date();
  for (const { id, key, stage } of plan) {
    if (!inShard(spec.control.shard, key)) continue;
    const rowId = [key.system, key.mode, key.arm].join('\0');
    const row = rows.get(rowId) ?? {
      experiment: 'grid',
      system: key.system,
      mode: key.mode,
      arm: key.arm,
      units: 0,
      done: 0,
      calls: { min: 0, max: 0 },
      cached: 0,
    };
    rows.set(rowId, row);
    row.units += 1;
    if (done.get(id) === true) {
      row.done += 1;
      continue;
    }
    // A reusing arm (the output filter reuses the `none` reply; its units are the plan's stage 1) sends nothing of its
    // own.
    if (stage === 1) continue;
    const model = input.models.find((m) => m.description.id === key.model)!;
    const { messages } = unitContext(
      key,
      scenarios.get(key.scenario)!,
      probes.get(probeIdOf(key.system, key.mode, key.scenario))!,
      now,
    );
    const hit =
      input.cacheLookup?.(model, {
        messages,
        trial: key.trial,
        sample: gridSample(key),
        metadata: { scenario: key.scenario },
      }) ?? false;
    row.calls.min += 1;
    row.calls.max += 1;
    if (hit) row.cached! += 1;
    const entry = calls.get(key.model) ?? { messages: [], cached: 0 };
    calls.set(key.model, entry);
    if (hit) entry.cached += 1;
    else entry.messages.push(messages);
  }
  const models = await Promise.all(
    input.models.map(async (model) => {
      const entry = calls.get(model.description.id) ?? { messages: [], cached: 0 };
      return modelPlan(input, model, entry.messages.length, entry.messages.length, entry.cached, entry.messages);
    }),
  );
  return { rows: [...rows.values()], models, notes };
}

/** The run's stored probes, or probes taken now on the embedded engine in a temporary directory. */
async function probesFor(input: PlanInput, notes: string[]): Promise<Map<string, ProbeRecord>> {
  const stored = new Map<string, ProbeRecord>();
  if (existsSync(join(input.runDir, 'setup.jsonl'))) {
    for (const row of readJsonLines<ProbeRecord>(join(input.runDir, 'setup.jsonl')).rows)
      if (row.status !== 'error') stored.set(probeIdOf(row.system, row.mode, row.scenario), row);
  }
  const missing = input.spec.systems.some((system) =>
    input.spec.modes.some((mode) => input.scenarios.some((s) => !stored.has(probeIdOf(system, mode, s.id)))),
  );
  if (!missing) return stored;
  const engineNote = defaultEngines(input.spec.engine)
    ? ''
    : ' (the run will read its own engines; they give the same reads in our tests)';
  notes.push(`prompts are built from probes taken now on the embedded engine${engineNote}`);
  const simulated = input.spec.modes.includes('natural') && !input.extraction.simulated;
  if (simulated)
    notes.push(
      `natural-mode prompts are estimated with the offline extractor; the run will extract with ${input.extraction.id}, which this plan does not call`,
    );
  const scratch = mkdtempSync(join(tmpdir(), 'stalebench-plan-'));
  try {
    // The scratch probes are written through the run log like any run's (its chain is bound to a run id).
    writeJsonAtomic(join(scratch, 'manifest.json'), { version: RUN_LOG_VERSION, runId: 'plan' });
    const probes = await runSetupPhase({
      runId: 'plan',
      runDir: scratch,
      systems: input.spec.systems,
      modes: input.spec.modes,
      scenarios: input.scenarios,
      k: input.spec.k,
      embedder: input.embedder,
      extraction: simulated ? input.simExtraction : input.extraction,
      loadBackend: (id, settings) => loadBackend(id, { ...settings, engine: defaultEngineSpec() }),
    });
    for (const [id, probe] of stored) probes.set(id, probe);
    return probes;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
