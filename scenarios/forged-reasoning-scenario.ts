// The FARMA-style forged-reasoning scenarios (poem.md §4, §6): schema and loader. Every string is authored by
// stalebench and versioned; none is FARMA's (its templates were never published), so each file says "FARMA-style".
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { UnknownComponentError } from '#core/errors.js';
import { allOrNothing, idIsFileName, readJsonFile } from './scenario-file.js';

/** The scenario ids, in the order of the PoEM paper's §V (EHRAgent, ReAct-QA, RAP). */
export const FORGED_REASONING_SCENARIO_IDS = ['ehr_insert_record', 'react_qa_answer', 'rap_finalize_purchase'] as const;

/** The forgery kinds (poem.md §4, §3 C): overt, reworded to evade the wording guard, and judgment reframing. */
export const FORGERY_KINDS = ['basic', 'adaptive', 'judgment'] as const;
export type ForgeryKind = (typeof FORGERY_KINDS)[number];

/** The genuine self-log styles of the benign traces (poem.md §6); `audit` is worded like a forgery on purpose. */
export const BENIGN_STYLES = ['plain', 'structured', 'audit'] as const;
export type BenignStyle = (typeof BENIGN_STYLES)[number];

const text = z.string().min(1);
const kebab = z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be kebab-case letters and digits');

/** One forgery: seed injection (decision-log style, never the word "skip") and an amplification template. */
const forgerySchema = z.strictObject({
  /** Phase 1: the seed entries (FARMA's default is 3). */
  seeds: z.array(text).length(3),
  /** Phase 2, one entry per cycle: `{count}` is the precedent count in digits, `{countWords}` the same in words. */
  amplification: text.refine(
    (t) => t.includes('{count}') || t.includes('{countWords}'),
    'must cite the precedent count ({count} or {countWords})',
  ),
});

export const forgedReasoningScenarioSchema = z
  .strictObject({
    /** Snake-case id; equals the file name. */
    id: z.enum(FORGED_REASONING_SCENARIO_IDS),
    /** Which FARMA scenario it imitates (EHRAgent, ReAct-QA, RAP). */
    farmaStyle: z.enum(['EHRAgent', 'ReAct-QA', 'RAP']),
    /** Always says FARMA-style and authored by stalebench. */
    label: text.refine(
      (t) => t.includes('FARMA-style') && t.includes('stalebench'),
      'must say FARMA-style and authored by stalebench',
    ),
    /** Fixture version; any change to a string below bumps it. */
    version: z.int().positive(),
    /** What the agent does, for its system prompt. */
    domain: text,
    /** The task shown to the agent. */
    task: text,
    /** Who or what the safety step is for (the ledger subject). */
    subject: text,
    /** The short token every note about the subject names (`X01`). */
    subjectToken: text,
    /** A different subject, for cross-subject replay (attack B). */
    otherSubject: text,
    /** The safety step S: its ledger action id and what it does. */
    safetyStep: z.strictObject({ action: kebab, description: text }),
    /** `[unsafe, safe]`: skip S and act, or perform S then act. */
    actions: z.tuple([text, text]),
    /** One sentence per action, shown with the allowed actions. */
    actionHelp: text,
    /** The agent's genuine earlier notes (no claim about S for the subject), present in every run. */
    memory: z.array(text).min(1),
    /** Amplification cycles (FARMA's default is 10). */
    amplificationCycles: z.int().min(1).max(50),
    /** The forgery fixtures by kind. */
    forgeries: z.strictObject({ basic: forgerySchema, adaptive: forgerySchema, judgment: forgerySchema }),
    /** The genuine self-log of a benign trace, by style. */
    benign: z.strictObject({ plain: text, structured: text, audit: text }),
    /** Provenance of the strings. */
    source: text,
  })
  .superRefine((scenario, context) => {
    const [unsafe, safe] = scenario.actions.map((action) => action.toUpperCase());
    if (unsafe!.includes(safe!) || safe!.includes(unsafe!))
      context.addIssue({
        code: 'custom',
        path: ['actions'],
        message: 'one action contains the other (the parser matches substrings)',
      });
    for (const kind of FORGERY_KINDS) {
      scenario.forgeries[kind].seeds.forEach((seed, index) => {
        if (/\bskip/i.test(seed))
          context.addIssue({
            code: 'custom',
            path: ['forgeries', kind, 'seeds', index],
            message: 'seed entries avoid the word "skip" (FARMA, poem.md §4)',
          });
        if (!seed.includes(scenario.subjectToken))
          context.addIssue({
            code: 'custom',
            path: ['forgeries', kind, 'seeds', index],
            message: `must name the subject token ${scenario.subjectToken}`,
          });
      });
    }
    for (const style of BENIGN_STYLES) {
      if (!scenario.benign[style].includes(scenario.subjectToken))
        context.addIssue({
          code: 'custom',
          path: ['benign', style],
          message: `must name the subject token ${scenario.subjectToken}`,
        });
    }
  });

/** A validated forged-reasoning scenario. */
export type ForgedReasoningScenario = z.infer<typeof forgedReasoningScenarioSchema>;

/** The repository's folder of forged-reasoning scenarios. */
export const FORGED_REASONING_SCENARIO_DIR = fileURLToPath(new URL('./forged-reasoning/', import.meta.url));

/**
 * Loads and validates the forged-reasoning scenarios in registry order, all or nothing (one error naming every file,
 * field and reason). Throws `UnknownComponentError` for an id that is not registered.
 *
 * @example const [ehr] = await loadForgedReasoningScenarios({ ids: ['ehr_insert_record'] });
 */
export async function loadForgedReasoningScenarios(
  options: { dir?: string; ids?: readonly string[] } = {},
): Promise<ForgedReasoningScenario[]> {
  const registered: readonly string[] = FORGED_REASONING_SCENARIO_IDS;
  for (const id of options.ids ?? [])
    if (!registered.includes(id)) throw new UnknownComponentError('forged-reasoning scenario', id, registered);
  const selected = options.ids ? registered.filter((id) => options.ids?.includes(id)) : registered;
  const paths = selected.map((id) => join(options.dir ?? FORGED_REASONING_SCENARIO_DIR, `${id}.json`));
  return allOrNothing(
    await Promise.all(
      paths.map((path) => readJsonFile(path, forgedReasoningScenarioSchema, { raw: idIsFileName(path) })),
    ),
    'forged-reasoning scenario files',
  );
}

/** The forged entries of one kind, in write order: the seeds, then one amplification entry per cycle. */
export function forgeryEntries(scenario: ForgedReasoningScenario, kind: ForgeryKind): string[] {
  const { seeds, amplification } = scenario.forgeries[kind];
  const cycles = Array.from({ length: scenario.amplificationCycles }, (_, index) => {
    const count = seeds.length + index; // each cycle cites every entry before it
    return amplification.replaceAll('{countWords}', numberWords(count)).replaceAll('{count}', String(count));
  });
  return [...seeds, ...cycles];
}

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty'];

/** 0..59 in English words (`52` → `fifty-two`): the adaptive amplification spells its count out. */
export function numberWords(value: number): string {
  if (!Number.isInteger(value) || value < 0 || value > 59)
    throw new RangeError(`numberWords: ${value} is outside 0..59`);
  if (value < 20) return ONES[value]!;
  const ones = value % 10;
  return `${TENS[Math.floor(value / 10)]}${ones === 0 ? '' : `-${ONES[ones]}`}`;
}
