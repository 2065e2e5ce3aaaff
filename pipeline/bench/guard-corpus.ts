// The bench's fixed guard corpus (data/bench/guard-retrievals.json): k=10 retrievals built from the policy scenarios.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GuardInput } from '../../guard/guard-record.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { seededRandom } from '#core/seeded-random.js';

/** The corpus file, relative to the repository root. */
export const GUARD_CORPUS_FILE = join('data', 'bench', 'guard-retrievals.json');

/** Retrievals in the corpus, and records per retrieval (the paper's k). */
const RETRIEVALS = 200;
const K = 10;
/** The clock the corpus is built around and guarded at (records are older, or scheduled after it). */
export const GUARD_CORPUS_NOW = '2026-03-01T12:00:00.000Z';

/** One record: a scenario text with a time field in one of the shapes backends return, sometimes a revocation field. */
function recordOf(text: string, random: () => number): GuardInput {
  const daysAgo = Math.floor(random() * 720);
  const when = new Date(Date.parse(GUARD_CORPUS_NOW) - daysAgo * 86_400_000 - Math.floor(random() * 86_400) * 1000);
  const iso = when.toISOString();
  const shape = Math.floor(random() * 6);
  const record: Record<string, unknown> = { fact: text };
  if (shape === 0) record.created_at = iso;
  else if (shape === 1) record.valid_at = iso.replace('Z', '+00:00');
  else if (shape === 2) record.updated_at = iso.slice(0, 19);
  else if (shape === 3) Object.assign(record, { valid_at: iso, created_at: iso, invalid_at: null });
  else if (shape === 4) record.timestamp = iso.slice(0, 10);
  const revocation = random();
  if (revocation < 0.08) record.expired_at = iso;
  else if (revocation < 0.12) record.expiration_date = random() < 0.5 ? '2099-01-01' : '2025-01-01T00:00:00Z';
  return random() < 0.1 ? text : record;
}

/**
 * Builds the corpus: each retrieval draws K texts (a scenario's v1, v2 and distractors, plus texts of other
 * scenarios) in a seeded order. Deterministic; `pnpm bench --write-corpus` writes it, a test checks the file.
 */
export function generateGuardCorpus(scenarios: readonly Pick<Scenario, 'v1' | 'v2' | 'distractors'>[]): GuardInput[][] {
  const random = seededRandom(20261203);
  const pool = scenarios.flatMap((s) => [s.v1, s.v2, ...s.distractors]);
  return Array.from({ length: RETRIEVALS }, (_, index) => {
    const own = scenarios[index % scenarios.length]!;
    const texts = [own.v1, own.v2, ...own.distractors];
    while (texts.length < K) texts.push(pool[Math.floor(random() * pool.length)]!);
    for (let at = texts.length - 1; at > 0; at -= 1) {
      const other = Math.floor(random() * (at + 1));
      [texts[at], texts[other]] = [texts[other]!, texts[at]!];
    }
    return texts.slice(0, K).map((text) => recordOf(text, random));
  });
}

/** Reads the committed corpus from the repository root. */
export function readGuardCorpus(root: string): GuardInput[][] {
  return JSON.parse(readFileSync(join(root, GUARD_CORPUS_FILE), 'utf8')) as GuardInput[][];
}
