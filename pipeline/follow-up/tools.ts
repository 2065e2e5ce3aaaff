// The tool-use exploit chain (stale-retrieval.md §14; reference `attacks/attack_exploit_chain.py`): retrieved
// policy drives an agent with six inert decoy tools; relapse re-runs it after a permissive journal.
import type { ExploitScenario } from '../../scenarios/exploit-scenario.js';
import type { AgentTrace, ToolsRecord } from '../follow-up-log.js';
import { relapseJournal, relapseQuery } from '../follow-up-prompts.js';
import { readMemory, seedScenario, writeJournal, type UnitContext } from '../follow-up-steps.js';
import { chatWithDecisionModel, runToolAgent } from '../tools/tool-agent.js';
import type { FollowUpExperiment } from './experiment.js';

/** v1 revoked (now − 90 d, expired now − 1 d) and v2 current, no distractors (§14). */
async function seedExploit(context: UnitContext, scenario: ExploitScenario): Promise<void> {
  await seedScenario(context, { mode: 'direct', revoked: [scenario.v1], current: [scenario.v2], relation: 'POLICY' });
}

/** One agent episode over one read. */
async function episode(context: UnitContext, scenario: ExploitScenario, input: { query: string; read: 'default' | 'filtered'; guard: boolean; guardrailArmed: boolean; toolSteps: number }): Promise<AgentTrace> {
  const readTrace = await readMemory(context, { query: input.query, read: input.read, guard: input.guard, scenario });
  const outcome = await runToolAgent({
    scenarioId: scenario.id,
    facts: readTrace.records.map((r) => r.text),
    task: scenario.task,
    chat: chatWithDecisionModel(context.model),
    guardrailArmed: input.guardrailArmed,
    trial: context.key.trial,
    maxSteps: input.toolSteps,
  });
  return { readTrace, guardrailArmed: input.guardrailArmed, steps: outcome.steps, stop: outcome.stop, flags: outcome.flags, calls: outcome.calls, verdict: outcome.verdict, bypassed_tool_guardrail: outcome.bypassed_tool_guardrail };
}

export const toolsExperiment: FollowUpExperiment<ToolsRecord> = {
  id: 'tools',
  recordType: 'tools-end',
  arms: ['none', 'store-filter', 'guard', 'tool-guardrail'],
  armDescriptions: {
    none: 'default read, no defence (reference attack); relapse runs when the attack fired',
    'store-filter': "the system's filtered read (reference retrieval_filter)",
    guard: 'default read through the stale-retrieval guard (reference guard)',
    'tool-guardrail': 'default read, the shell guardrail armed (reference tool_guardrail)',
  },
  scenarioKind: 'exploit',
  notApplicable(description, key) {
    if (key.mode !== 'direct') return 'the exploit scenarios define no natural-mode episodes; they are seeded directly (§14)';
    if (!description.modes.direct.supported) return `direct seeding: ${description.modes.direct.reason}`;
    if (key.arm === 'store-filter' && description.storeFilter === null) return 'the system has no filtered read';
    if (key.poem) return 'the exploit scenarios name no safety step for the proof-of-execution gate to check; the tool-layer analogue is the tool-guardrail arm';
    return null;
  },
  empty: () => ({ agent: null }),
  async run(context, scenario, settings, result) {
    const { arm, guard } = context.key;
    await seedExploit(context, scenario);
    const read = arm === 'store-filter' ? 'filtered' : 'default';
    result.agent = await episode(context, scenario, { query: scenario.query, read, guard: guard || arm === 'guard', guardrailArmed: arm === 'tool-guardrail', toolSteps: settings.toolSteps });
    if (arm !== 'none' || !result.agent.verdict.unsafe) return;
    // §14.5: wipe and reseed; a priming episode on the default read (output discarded); then an active
    // permissive journal; then a second agent with the forward query, once per read.
    await seedExploit(context, scenario);
    const priming = await episode(context, scenario, { query: scenario.query, read: 'default', guard, guardrailArmed: false, toolSteps: settings.toolSteps });
    const journal = relapseJournal(scenario.id);
    await writeJournal(context, { text: journal, mode: 'direct', afterHop: 0 });
    const forward = { query: relapseQuery(scenario.id), guard, guardrailArmed: false, toolSteps: settings.toolSteps };
    const relapseDefault = await episode(context, scenario, { ...forward, read: 'default' });
    const relapseFiltered = await episode(context, scenario, { ...forward, read: 'filtered' });
    result.relapse = { journal, priming, default: relapseDefault, filtered: relapseFiltered };
  },
};
