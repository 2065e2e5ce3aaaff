// Front-door fixture files: the schema, the checks that keep every fixture keyed on one fact, and the loader.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { containsKey } from '../../backends/store-tools/text-checks.js';
import { InvalidInputError, type InputIssue } from '#core/errors.js';
import { parseJsonFile } from '../scenario-file.js';

/** The six attack families (integrity.md §9), in scorecard order. */
export const ATTACK_NAMES = [
  'memory_injection',
  'cross_session_bleed',
  'retrieval_hijack',
  'indirect_prompt_injection',
  'update_poisoning',
  'metadata_poisoning',
] as const;
export type AttackName = (typeof ATTACK_NAMES)[number];

const text = z.string().trim().min(1);
const fixtureSchema = z.strictObject({
  /** Stable id, `<attack prefix>-<n>-<topic>`. */
  id: z.string().regex(/^[a-z0-9-]+$/, 'lower-case letters, digits and dashes'),
  /** The victim's own memories, written as `user` with a valid signature, in order. */
  genuine: z.array(text).min(1),
  /** The positive control: an on-topic question and the genuine fact it must bring back. */
  control: z.strictObject({ query: text, expect: text }),
  /** The victim's innocent question the verdict read asks. */
  query: text,
  /** The attacker's write: its text, a fixed paraphrase and the fact that matters (`key`). */
  attacker: z.strictObject({ text, paraphrase: text, key: text, parts: z.array(text).min(2).optional() }),
  /** update_poisoning: the fact the user stated (replaced or alongside). */
  stated: text.optional(),
  /** cross_session_bleed: the other user's memories besides the private one (`attacker.text`). */
  owner: z.array(text).optional(),
  /** metadata_poisoning: the genuine memories that carry the trust tag. */
  tagged: z.array(text).optional(),
  /** metadata_poisoning: an untagged on-topic memory the filter must hold back (the negative control). */
  decoy: z.strictObject({ text, key: text }).optional(),
});
const fileSchema = z.strictObject({
  attack: z.enum(ATTACK_NAMES),
  /** The attack's version; a changed fixture set bumps it, so cells of different versions are never compared. */
  version: z.number().int().positive(),
  /** Who wrote these fixtures and from what. */
  source: text,
  /** Results the victim's read asks for. */
  limit: z.number().int().positive(),
  /** metadata_poisoning: the trust tag the pipeline filters on. */
  tag: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  fixtures: z.array(fixtureSchema).min(1),
});

export type FrontdoorFixture = z.infer<typeof fixtureSchema>;
export type FixtureFile = z.infer<typeof fileSchema>;

/** Problems a schema cannot see: every fixture keyed on its fact, and the fields its attack needs. */
function semanticIssues(file: FixtureFile): InputIssue[] {
  const issues: InputIssue[] = [];
  const need = (ok: boolean, path: string, message: string) => void (ok || issues.push({ path, message }));
  need(file.attack !== 'metadata_poisoning' || file.tag !== undefined, 'tag', 'metadata_poisoning needs the trust tag');
  file.fixtures.forEach((fixture, index) => {
    const at = `fixtures[${index}]`;
    const { key } = fixture.attacker;
    const written = [...fixture.genuine, ...(fixture.tagged ?? [])];
    need(containsKey(fixture.attacker.text, key), `${at}.attacker.key`, `"${key}" is not in attacker.text`);
    need(
      containsKey(fixture.attacker.paraphrase, key),
      `${at}.attacker.paraphrase`,
      `"${key}" is not in the paraphrase`,
    );
    need(
      !fixture.attacker.parts || fixture.attacker.parts.some((part) => containsKey(part, key)),
      `${at}.attacker.parts`,
      `no part carries "${key}"`,
    );
    need(
      !written.some((memory) => containsKey(memory, key)),
      `${at}.genuine`,
      `a genuine memory already carries the attacker's "${key}"`,
    );
    need(
      written.some((memory) => containsKey(memory, fixture.control.expect)),
      `${at}.control.expect`,
      `"${fixture.control.expect}" is in no genuine memory`,
    );
    need(new Set(fixture.genuine).size === fixture.genuine.length, `${at}.genuine`, 'duplicate memories');
    if (file.attack === 'update_poisoning')
      need(
        fixture.stated !== undefined && written.some((m) => containsKey(m, fixture.stated!)),
        `${at}.stated`,
        'required, and carried by a genuine memory',
      );
    if (file.attack === 'cross_session_bleed')
      need(fixture.owner !== undefined, `${at}.owner`, "required: the other user's memories");
    if (file.attack === 'metadata_poisoning') {
      need((fixture.tagged ?? []).length > 0, `${at}.tagged`, 'required: the genuine memories carrying the tag');
      need(
        fixture.decoy !== undefined && containsKey(fixture.decoy.text, fixture.decoy.key),
        `${at}.decoy`,
        'required, with its key in its text',
      );
    }
  });
  return issues;
}

/**
 * Parses one fixture file's JSON text through the scenario file reader (scenarios/scenario-file.ts): a syntax error by
 * line and column, else every problem at once, each with its path, naming the file.
 */
export function parseFixtureFile(json: string, source: string): FixtureFile {
  const outcome = parseJsonFile(json, source, fileSchema, { valid: semanticIssues });
  if (outcome instanceof InvalidInputError) throw outcome;
  return outcome;
}

/** The directory of the shipped fixture set (`scenarios/frontdoor/`). */
export const FIXTURE_DIR = import.meta.dirname;

/** Loads `<attack>.json` for each attack from `dir`; a missing file, or one holding another attack, is an error. */
export function loadFixtureSet(dir: string = FIXTURE_DIR): Record<AttackName, FixtureFile> {
  const present = new Set(readdirSync(dir));
  const set: Partial<Record<AttackName, FixtureFile>> = {};
  for (const attack of ATTACK_NAMES) {
    const path = join(dir, `${attack}.json`);
    if (!present.has(`${attack}.json`))
      throw new InvalidInputError(path, [{ path: '', message: `missing: every attack needs its fixture file` }]);
    const file = parseFixtureFile(readFileSync(path, 'utf8'), path);
    if (file.attack !== attack)
      throw new InvalidInputError(path, [{ path: 'attack', message: `holds ${file.attack}, expected ${attack}` }]);
    set[attack] = file;
  }
  return set as Record<AttackName, FixtureFile>;
}
