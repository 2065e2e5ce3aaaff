// sha256 of every prompt string and template an experiment sends, so a resumed run knows whether its prompts changed.
import {
  BASE_SYS,
  HOP_TASK,
  JOURNAL_MARKERS,
  JOURNAL_SOURCE_DESCRIPTION,
  ROLE_ORDER,
  ROLE_SYS,
  buildRoleMessages,
  decisionJournal,
  journalEpisodeName,
  relapseJournal,
  relapseQuery,
  roleQuery,
  roleTask,
} from '../follow-ups/follow-up-prompts.js';
import { HARDEN, SYS_PLAIN, buildDecisionMessages } from './prompts.js';
import {
  FIRST_USER,
  SYS,
  TOOL_TURN,
  buildFirstUserMessage,
  buildToolTurnMessage,
} from '../follow-ups/tools/exploit-protocol.js';
import { sha256 } from '../../run-log/json-files.js';
import { buildReasoningMessages, FORGED_REASONING_PROMPT_VERSION } from '../forged-reasoning/prompts.js';
import {
  ATTACKER_PROMPT_VERSION,
  ATTACKER_SYSTEM,
  attackerBrief,
  attackerFeedbackMessage,
} from '../forged-reasoning/model-attacker.js';

// Templates are functions: rendering them on fixed probe values captures both their constants and their shape.
const FACTS = ['fact one', 'fact two'];
const ACTIONS = ['UNSAFE_ACTION', 'SAFE_ACTION'];
const SCENARIO = { id: 'probe_scenario', query: 'probe query?', task: 'probe task' };
const AT = new Date('2026-01-01T00:00:00.000Z');

const PARTS = {
  /** The grid's decision prompt (§6.1), plain and hardened, with and without a guardrail. */
  decision: () => [
    SYS_PLAIN,
    HARDEN,
    ...[null, 'guardrail'].flatMap((guardrail) =>
      [false, true].map((harden) =>
        buildDecisionMessages({ facts: FACTS, task: 'task', actions: ACTIONS, guardrail, harden }),
      ),
    ),
  ],
  /** Write-back and propagation journals (§12, §13). */
  journal: () => [
    decisionJournal(SCENARIO.id, 'ACTION', 'x'.repeat(200)),
    HOP_TASK,
    JOURNAL_MARKERS,
    journalEpisodeName(SCENARIO.id, AT),
    JOURNAL_SOURCE_DESCRIPTION,
  ],
  /** The propagation roles (§13). */
  roles: () => [
    BASE_SYS,
    ROLE_SYS,
    ...ROLE_ORDER.map((role) => [
      roleQuery(role, SCENARIO),
      roleTask(role, SCENARIO),
      buildRoleMessages({ role, facts: FACTS, task: 'task', actions: ACTIONS, guardrail: 'guardrail' }),
    ]),
  ],
  /** The exploit chain's agent protocol and relapse journal (§14). */
  tools: () => [
    SYS,
    FIRST_USER,
    TOOL_TURN,
    buildFirstUserMessage(FACTS, 'task'),
    buildToolTurnMessage('read_file', 'result'),
    relapseJournal(SCENARIO.id),
    relapseQuery(SCENARIO.id),
  ],
  /** The forged-reasoning decision prompt and the adaptive attacker's prompts (poem.md §6). */
  reasoning: () => {
    const scenario = {
      id: 'probe',
      domain: 'probe domain',
      task: 'probe task',
      subject: 'subject S1',
      subjectToken: 'S1',
      safetyStep: { action: 'probe-step', description: 'probe step' },
      actionHelp: 'probe help',
      actions: ACTIONS as [string, string],
    };
    return [
      `forged-reasoning prompt v${FORGED_REASONING_PROMPT_VERSION}, attacker prompt v${ATTACKER_PROMPT_VERSION}`,
      buildReasoningMessages(scenario, FACTS),
      buildReasoningMessages(scenario, []),
      ATTACKER_SYSTEM,
      attackerBrief(scenario),
      ...(['caught', 'unconvincing', 'success', 'no-note'] as const).map((feedback) =>
        attackerFeedbackMessage({ feedback, fired: ['structure-check'] }),
      ),
    ];
  },
} as const;

/** The prompt parts each experiment sends. */
const USED: Readonly<Record<string, readonly (keyof typeof PARTS)[]>> = {
  grid: ['decision'],
  writeback: ['decision', 'journal'],
  propagation: ['roles', 'journal'],
  tools: ['tools'],
  'forged-reasoning': ['reasoning'],
};

/**
 * sha256 per prompt part the experiment uses, e.g. `{ decision: '9f…' }` for the grid.
 *
 * @example promptFingerprint('writeback') // { decision: '…', journal: '…' }
 */
export function promptFingerprint(experiment: string): Record<string, string> {
  const parts = USED[experiment] ?? Object.keys(PARTS);
  return Object.fromEntries(parts.map((part) => [part, sha256(JSON.stringify(PARTS[part as keyof typeof PARTS]()))]));
}
