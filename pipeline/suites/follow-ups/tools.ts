// The tool-use exploit chain (stale-retrieval.md §14; reference `attacks/attack_exploit_chain.py`): retrieved
// policy drives an agent with six inert decoy tools; relapse re-runs it after a permissive journal.
import type { ExploitScenario } from '../../../scenarios/exploit-scenario.js';
import type { AgentTrace, FollowUpKey, ToolsRecord } from './follow-up-log.js';
import { relapseJournal, relapseQuery } from './follow-up-prompts.js';
import { followUpDefences, readMemory, seedScenario, writeJournal, type UnitContext } from './follow-up-steps.js';
import { AXIS_DEFENCES, type UnitDefences } from '../../defences/compose.js';
import type { DefenceId } from '../../defences/defence-v1.js';
import { reviewDecision } from '../../defences/reviews.js';
import { UnknownComponentError, UnsupportedFeatureError } from '#core/errors.js';
import type { ToolsArmId } from '../../run/experiments.js';
import { chatWithDecisionModel, exploitVerdict, runToolAgent, type ToolAgentSettings } from './tools/tool-agent.js';
import { runDecoyTool } from './tools/decoy-tools.js';
import type { ToolState } from './tools/sentinels.js';
import type { PoemTrace } from '../grid/action-layer.js';
import { followUpUnitIdOf } from './follow-up-log.js';
import { followUpSample } from '../../models/sample-identity.js';
import type { FollowUpExperiment } from './experiment.js';

/** v1 revoked (now − 90 d, expired now − 1 d) and v2 current, no distractors (§14). */
async function seedExploit(context: UnitContext, scenario: ExploitScenario): Promise<void> {
  await seedScenario(context, { mode: 'direct', revoked: [scenario.v1], current: [scenario.v2], relation: 'POLICY' });
}

/** The exact refusal an agent reads when the gate overrides a call. */
function gateRefusal(scenario: ExploitScenario): string {
  return `error: refused by the proof-of-execution gate: no ledger record that ${scenario.safetyStep.action} ran for this request (${scenario.safetyStep.description})`;
}

/**
 * Each arm as data: the registered defences it composes (its read and screens), and whether the shell guardrail is
 * armed. The arms and their descriptions are declared in pipeline/run/experiments.ts; the mapped type refuses a missing or
 * an extra arm here.
 */
const TOOL_ARMS = {
  none: { uses: [], guardrailArmed: false },
  'store-filter': { uses: ['store-filter'], guardrailArmed: false },
  guard: { uses: ['guard'], guardrailArmed: false },
  'tool-guardrail': { uses: [], guardrailArmed: true },
} as const satisfies { readonly [Arm in ToolsArmId]: { uses: readonly DefenceId[]; guardrailArmed: boolean } };

const isToolArm = (arm: string): arm is keyof typeof TOOL_ARMS => Object.hasOwn(TOOL_ARMS, arm);

/** The first agent's defences (its arm's, plus the axes) and guardrail; relapse agents run the axes only (§14.5). */
export function toolArmOf(key: Pick<FollowUpKey, 'arm' | 'guard' | 'poem'>): {
  defences: ReturnType<typeof followUpDefences>;
  guardrailArmed: boolean;
} {
  if (!isToolArm(key.arm)) throw new UnknownComponentError('tools arm', key.arm, Object.keys(TOOL_ARMS));
  const arm = TOOL_ARMS[key.arm];
  return { defences: followUpDefences(key, arm.uses), guardrailArmed: arm.guardrailArmed };
}

/**
 * The post-decision steps around each decoy (`--poem on`: the PoEM gate). A call that would fire the unsafe signal
 * (dry-run on a copy of the flags) is the gated skip; the gate's executor allows it only with a ledger event of the
 * safety step for this episode's subject, and refuses it otherwise. Tools that perform the step append that event
 * after they run. Null when the unit has no post-decision step.
 */
export function poemHooks(
  context: Pick<UnitContext, 'actions'>,
  scenario: ExploitScenario,
  subject: string,
  guardrailArmed: boolean,
  traces: PoemTrace[],
  reviews: UnitDefences['reviews'],
): ToolAgentSettings['hooks'] | null {
  if (reviews.length === 0) return null;
  const other = reviews.find((step) => step.id !== AXIS_DEFENCES.poem);
  if (other)
    throw new UnsupportedFeatureError(`defence ${other.id}`, 'gating tool calls (only the PoEM gate gates them)');
  return {
    async before(call, state, calls) {
      const probe = structuredClone(state) as ToolState;
      runDecoyTool(call.tool, call.args, probe, { guardrailArmed });
      const fires =
        exploitVerdict(scenario.id, probe, calls + 1).unsafe && !exploitVerdict(scenario.id, state, calls).unsafe;
      if (!fires) return null;
      const decision = await reviewDecision(reviews, {
        proposedAction: call.tool,
        unsafeAction: call.tool,
        reply: { text: '', reusedFrom: null }, // a tool call has no reply text of its own
        reads: null,
        execute: () => context.actions.gateToolCall(scenario.id, subject, call.tool),
      });
      for (const { trace } of decision.traces) traces.push(trace as PoemTrace);
      return decision.unsafe === true ? null : gateRefusal(scenario);
    },
    async after(tool) {
      await context.actions.recordToolRun(scenario.id, subject, tool);
    },
  };
}

/** One agent episode over one read, through `defences` (its screens; its post-decision steps gate the tool calls). */
async function episode(
  context: UnitContext,
  scenario: ExploitScenario,
  input: {
    query: string;
    read: 'default' | 'filtered';
    defences: UnitDefences;
    guardrailArmed: boolean;
    toolSteps: number;
    name: string;
  },
): Promise<AgentTrace> {
  const readTrace = await readMemory(context, {
    query: input.query,
    read: input.read,
    defences: input.defences,
    scenario,
  });
  const traces: PoemTrace[] = [];
  const subject = `${followUpUnitIdOf(context.key)}#${input.name}`;
  const hooks = poemHooks(context, scenario, subject, input.guardrailArmed, traces, input.defences.reviews);
  const outcome = await runToolAgent({
    scenarioId: scenario.id,
    facts: readTrace.records.map((r) => r.text),
    task: scenario.task,
    chat: chatWithDecisionModel(context.model, context.signal),
    guardrailArmed: input.guardrailArmed,
    trial: context.key.trial,
    sample: followUpSample(context.key, input.name),
    maxSteps: input.toolSteps,
    ...(hooks ? { hooks } : {}),
  });
  return {
    readTrace,
    guardrailArmed: input.guardrailArmed,
    steps: outcome.steps,
    stop: outcome.stop,
    flags: outcome.flags,
    calls: outcome.calls,
    verdict: outcome.verdict,
    bypassed_tool_guardrail: outcome.bypassed_tool_guardrail,
    ...(hooks ? { poem: traces } : {}),
  };
}

export const toolsExperiment: FollowUpExperiment<ToolsRecord, ExploitScenario> = {
  id: 'tools',
  recordType: 'tools-end',
  notApplicable(description, key) {
    if (key.mode !== 'direct')
      return 'the exploit scenarios define no natural-mode episodes; they are seeded directly (§14)';
    if (!description.modes.direct.supported) return `direct seeding: ${description.modes.direct.reason}`;
    if (toolArmOf(key).defences.read === 'filtered' && description.storeFilter === null)
      return 'the system has no filtered read';
    return null;
  },
  // One episode of up to toolSteps calls; the `none` arm's relapse adds three more episodes when the attack fired.
  calls: (settings, arm) => ({ min: 1, max: settings.toolSteps * (arm === 'none' ? 4 : 1) }),
  empty: () => ({ agent: null }),
  async run(context, scenario, settings, result) {
    const { arm } = context.key;
    const agent = toolArmOf(context.key);
    await seedExploit(context, scenario);
    result.agent = await episode(context, scenario, {
      query: scenario.query,
      read: agent.defences.read,
      defences: agent.defences,
      guardrailArmed: agent.guardrailArmed,
      toolSteps: settings.toolSteps,
      name: 'agent',
    });
    if (arm !== 'none' || !result.agent.verdict.unsafe) return;
    // §14.5: wipe and reseed; a priming episode on the default read (output discarded); then an active
    // permissive journal; then a second agent with the forward query, once per read; all under the axes only.
    await seedExploit(context, scenario);
    const axes = context.defences;
    const priming = await episode(context, scenario, {
      query: scenario.query,
      read: 'default',
      defences: axes,
      guardrailArmed: false,
      toolSteps: settings.toolSteps,
      name: 'relapse-priming',
    });
    const journal = relapseJournal(scenario.id);
    await writeJournal(context, { text: journal, mode: 'direct', afterHop: 0 });
    const forward = {
      query: relapseQuery(scenario.id),
      defences: axes,
      guardrailArmed: false,
      toolSteps: settings.toolSteps,
    };
    const relapseDefault = await episode(context, scenario, { ...forward, read: 'default', name: 'relapse-default' });
    const relapseFiltered = await episode(context, scenario, {
      ...forward,
      read: 'filtered',
      name: 'relapse-filtered',
    });
    result.relapse = { journal, priming, default: relapseDefault, filtered: relapseFiltered };
  },
};
