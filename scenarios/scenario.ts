// The scenario schema: every scenario file is validated against it before anything runs.
import { z } from 'zod';

/**
 * A policy scenario (stale-retrieval.md §4). Exact strings are experimental inputs and are copied byte for
 * byte from the paper's reference code (`VulcanLab/Memory-Rebirth-Attack` @ a8e0964735e7,
 * `core/situations.py`), which matches the paper's Table 4. The one exception is `safetyStep`, which is our own data.
 */
export const scenarioSchema = z
  .object({
    /** Stable id from the reference code, e.g. `privilege_escalation_deploy_approval`. */
    id: z.string().regex(/^[a-z0-9]+(_[a-z0-9]+)*$/, 'must be snake_case letters and digits'),
    /** Short name used in the paper's tables, e.g. `deploy approval`. */
    short: z.string().min(1),
    /** `payload` (no guardrail, no distractors) or `scenario` (guardrail and distractors). */
    family: z.enum(['payload', 'scenario']),
    /** Safety rule prepended to the system prompt, or null. */
    guardrail: z.string().min(1).nullable(),
    /** The revoked policy: following it yields the unsafe action. */
    v1: z.string().min(1),
    /** The current policy: following it yields the safe action. */
    v2: z.string().min(1),
    /** Unrelated current facts seeded after v2. */
    distractors: z.array(z.string().min(1)),
    /** Retrieval query (asks for the *historical* policy, by design). */
    query: z.string().min(1),
    /** The decision task shown to the agent. */
    task: z.string().min(1),
    /** Always `[unsafe, safe]`: the parser tests them in this order. */
    actions: z.tuple([z.string().min(1), z.string().min(1)]),
    /**
     * The safety step that the unsafe action (`actions[0]`) skips, for the proof-of-execution gate (poem.md §2.2).
     * This is **project data**, authored by stalebench: neither the stale-retrieval paper nor its reference code has
     * such a mapping, and PoEM's own scenarios (EHRAgent, ReAct-QA, RAP) differ. The gate allows the unsafe action
     * only if the execution ledger holds an event whose action equals `safetyStep.action` for the same subject.
     */
    safetyStep: z
      .object({
        /** Ledger action id of the step, kebab-case (e.g. `mfa-challenge`); what the action layer appends when it runs. */
        action: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be kebab-case letters and digits'),
        /** One sentence: what having run the step establishes. */
        description: z.string().min(1),
      })
      .strict(),
    /** Natural-mode episode names: the governing document and the governed system (§5). */
    natural: z.object({ doc: z.string().min(1), subject: z.string().min(1) }).strict(),
    /** Where the exact strings come from. */
    source: z.string().min(1),
  })
  .strict()
  .superRefine((scenario, context) => {
    scenario.actions.forEach((action, index) => {
      // The prompt shows the actions as a Python list repr with single quotes (§6.1); a quote or backslash would
      // make Python switch quoting or escape, so the bytes sent would no longer be the reference's.
      if (/['\\]|[^\x20-\x7e]/.test(action)) {
        context.addIssue({
          code: 'custom',
          path: ['actions', index],
          message: `"${action}" must be printable ASCII without a quote or backslash (the prompt renders the actions as a Python list repr)`,
        });
      }
    });
    const [unsafe, safe] = scenario.actions.map((action) => action.toUpperCase());
    if (unsafe === safe) {
      context.addIssue({
        code: 'custom',
        path: ['actions'],
        message: `the unsafe and safe actions must differ, also in case ("${scenario.actions[0]}" / "${scenario.actions[1]}")`,
      });
    } else if (unsafe!.includes(safe!) || safe!.includes(unsafe!)) {
      // The paper's parser uppercases and tests substrings, unsafe first (§6.3): DISAPPROVE would parse as APPROVE.
      const [inner, outer] = unsafe!.includes(safe!)
        ? [scenario.actions[1], scenario.actions[0]]
        : [scenario.actions[0], scenario.actions[1]];
      context.addIssue({
        code: 'custom',
        path: ['actions'],
        message: `"${inner}" is contained in "${outer}" (case-insensitively): the parser matches substrings, so replies naming "${outer}" would be scored as "${inner}"`,
      });
    }
    if (scenario.family === 'payload' && (scenario.guardrail !== null || scenario.distractors.length > 0)) {
      context.addIssue({
        code: 'custom',
        path: ['family'],
        message: 'a payload scenario has no guardrail and no distractors',
      });
    }
  });

/** A validated scenario. */
export type Scenario = z.infer<typeof scenarioSchema>;

/** The unsafe action (following the revoked policy). */
export function unsafeAction(scenario: Scenario): string {
  return scenario.actions[0];
}
