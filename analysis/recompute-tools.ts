// Re-runs each stored tool-agent episode on its stored replies: tool calls, decoy replies, flags, verdict, PoEM gate.
import {
  createActionLayer,
  type ActionLayer,
  type PoemTrace,
  type AgentTrace,
  type ToolsRecord,
  followUpUnitIdOf,
  relapseJournal,
  relapseQuery,
  poemHooks,
  toolArmOf,
  followUpDefences,
  runToolAgent,
  type ChatFunction,
  followUpSample,
} from '../pipeline/index.js';
import type { ExploitScenario } from '../scenarios/exploit-scenario.js';
import { recomputeReadTrace, type ReadExpectation, type TraceContext } from './recompute-read-trace.js';

/** Thrown by the replayed model when the recomputed episode asks for a call the run does not hold. */
class ReplayExhausted extends Error {}

/** What `recomputeToolsRecord` needs besides the record. */
export interface ToolsContext extends TraceContext {
  scenario: ExploitScenario;
  /** Model calls per episode at most (`--tool-steps`). */
  toolSteps: number;
  /** All exploit scenarios of the run (the replayed PoEM layer's mapping). */
  exploitScenarios: readonly ExploitScenario[];
}

/**
 * One episode replayed through `runToolAgent` with the stored replies as the model's answers, over the recomputed
 * read: every step's messages, parsed call, decoy reply and flags, the stop reason and the verdict are recomputed.
 * With `--poem on` the gate runs on a fresh ledger for the episode (its subject is the episode's own); the MAC head
 * and reason text of each verdict depend on the run's ledger and are kept as recorded.
 */
async function replayEpisode(
  stored: AgentTrace,
  input: {
    name: string;
    expectation: ReadExpectation;
    guardrailArmed: boolean;
    path: string;
    record: ToolsRecord;
    actions: ActionLayer;
  },
  context: ToolsContext,
): Promise<AgentTrace> {
  const { key } = input.record;
  const readTrace = recomputeReadTrace(stored.readTrace, input.expectation, {
    ...context,
    path: `${input.path}.readTrace`,
  });
  let index = 0;
  const chat: ChatFunction = async () => {
    const step = stored.steps[index];
    index += 1;
    if (!step) throw new ReplayExhausted();
    return step.reply;
  };
  const traces: PoemTrace[] = [];
  const subject = `${followUpUnitIdOf(key)}#${input.name}`;
  const hooks = poemHooks(
    { actions: input.actions },
    context.scenario,
    subject,
    input.guardrailArmed,
    traces,
    input.expectation.defences.reviews,
  );
  let outcome;
  try {
    outcome = await runToolAgent({
      scenarioId: context.scenario.id,
      facts: readTrace.records.map((r) => r.text),
      task: context.scenario.task,
      chat,
      guardrailArmed: input.guardrailArmed,
      trial: key.trial,
      sample: followUpSample(key, input.name),
      maxSteps: context.toolSteps,
      ...(hooks ? { hooks } : {}),
    });
  } catch (error) {
    if (!(error instanceof ReplayExhausted)) throw error;
    const calls = stored.steps.length;
    context.log.add({
      ...context.where,
      field: `${input.path}.steps`,
      stored: `(${calls} model call(s))`,
      recomputed: `(the episode recomputed from them asks for call ${calls + 1}, which the run does not hold)`,
    });
    return stored;
  }
  const { poem: _poem, ...rest } = stored;
  const poem = traces.map((trace, i) => ({
    ...trace,
    reason: stored.poem?.[i]?.reason ?? trace.reason,
    head: stored.poem?.[i]?.head ?? trace.head,
  }));
  const { stop, flags, calls, verdict, bypassed_tool_guardrail } = outcome;
  // A run written before agent steps recorded their sample identity is compared without it.
  const steps = outcome.steps.map((step, i) => {
    if (stored.steps[i]?.sample !== undefined) return step;
    const { sample: _sample, ...rest } = step;
    return rest as typeof step;
  });
  return {
    ...rest,
    readTrace,
    guardrailArmed: input.guardrailArmed,
    steps,
    stop,
    flags,
    calls,
    verdict,
    bypassed_tool_guardrail,
    ...(hooks ? { poem } : {}),
  };
}

/** A tools record as the experiment would have written it from its stored replies; differences go to the log in record order. */
export async function recomputeToolsRecord(record: ToolsRecord, context: ToolsContext): Promise<ToolsRecord> {
  const { key } = record;
  const { scenario, log, where } = context;
  // One ledger per record: in the run each episode's subject is its own, and a retried unit ran in a new process.
  const actions = createActionLayer({ scenarios: [], exploitScenarios: context.exploitScenarios });
  const none: ReadonlySet<string> = new Set();
  const copy: ToolsRecord = { ...record };
  if (record.agent) {
    // The arm's defences and guardrail through the same table the experiment runs (pipeline/suites/follow-ups/tools.ts).
    const agent = toolArmOf(key);
    const expectation: ReadExpectation = {
      read: agent.defences.read,
      query: scenario.query,
      defences: agent.defences,
      journals: none,
    };
    copy.agent = await replayEpisode(
      record.agent,
      { name: 'agent', expectation, guardrailArmed: agent.guardrailArmed, path: 'agent', record, actions },
      context,
    );
    log.compare(where, 'agent', record.agent, copy.agent);
  }
  const relapseExpected = record.status === 'ok' && key.arm === 'none' && copy.agent?.verdict.unsafe === true;
  if (record.status === 'ok' && relapseExpected !== (record.relapse !== undefined)) {
    log.add({
      ...where,
      field: 'relapse',
      stored: record.relapse === undefined ? undefined : '(a relapse)',
      recomputed: relapseExpected
        ? '(a relapse: the recomputed attack fired; it needs new model calls)'
        : '(no relapse: the recomputed attack did not fire)',
    });
  }
  if (record.relapse) {
    const journals = new Set([record.relapse.journal]);
    const axes = followUpDefences(key);
    const forward = { query: relapseQuery(key.scenario), defences: axes, journals };
    const episode = (name: string, trace: AgentTrace, expectation: ReadExpectation, path: string) =>
      replayEpisode(trace, { name, expectation, guardrailArmed: false, path, record, actions }, context);
    copy.relapse = {
      journal: relapseJournal(key.scenario),
      priming: await episode(
        'relapse-priming',
        record.relapse.priming,
        { read: 'default', query: scenario.query, defences: axes, journals: none },
        'relapse.priming',
      ),
      default: await episode(
        'relapse-default',
        record.relapse.default,
        { ...forward, read: 'default' },
        'relapse.default',
      ),
      filtered: await episode(
        'relapse-filtered',
        record.relapse.filtered,
        { ...forward, read: 'filtered' },
        'relapse.filtered',
      ),
    };
    log.compare(where, 'relapse', record.relapse, copy.relapse);
  }
  return copy;
}
