// The ordered index of a scenario folder (`index.json`): which scenarios it registers, in grid order, and where each
// sits in the paper's Table 8/11. The repository's own index is the single source of the policy scenario ids.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError, type InputIssue } from '#core/errors.js';
import { parseJsonFile } from './scenario-file.js';

/** The index's file name inside a scenario folder. */
export const INDEX_FILE = 'index.json';

/** A scenario's place in the paper's Table 8/11 (per scenario, grouped by rule: family `scenario` vs `payload`). */
const table8Schema = z.strictObject({
  /** Orders the rows of the scenario's rule group, 1 first (the paper lists each group by decreasing published rate). */
  rank: z.int().positive(),
  /** Adds a pooled row of the group without this scenario, under this label (the paper's "excluding backup deletion"). */
  pooledWithout: z.string().min(1).optional(),
});

/** One registered scenario. */
const entrySchema = z.strictObject({
  /** The scenario id; the folder holds `<id>.json`. */
  id: z.string().regex(/^[a-z0-9]+(_[a-z0-9]+)*$/, 'must be snake_case letters and digits'),
  /** Its place in Table 8/11; without it the scenario follows the ranked ones of its group, in grid order. */
  table8: table8Schema.optional(),
});

/** `index.json`: the scenarios of a folder in grid order, with what they are and where the order comes from. */
const scenarioIndexSchema = z
  .strictObject({
    /** What the file is, for a reader who opens it first. */
    about: z.string().min(1),
    /** Where the order and the table placement come from. */
    source: z.string().min(1),
    /** The scenarios, in grid order. */
    scenarios: z.array(entrySchema).min(1),
  })
  .superRefine((index, context) => {
    const seen = new Map<string, number>();
    const ranks = new Map<number, string>();
    index.scenarios.forEach((entry, at) => {
      const first = seen.get(entry.id);
      if (first !== undefined)
        context.addIssue({
          code: 'custom',
          path: ['scenarios', at, 'id'],
          message: `"${entry.id}" is also scenarios[${first}]`,
        });
      seen.set(entry.id, at);
      const rank = entry.table8?.rank;
      const holder = rank === undefined ? undefined : ranks.get(rank);
      if (holder !== undefined)
        context.addIssue({
          code: 'custom',
          path: ['scenarios', at, 'table8', 'rank'],
          message: `rank ${rank} is also ${holder}'s`,
        });
      else if (rank !== undefined) ranks.set(rank, entry.id);
    });
  });

/** A validated index. */
export type ScenarioIndex = z.infer<typeof scenarioIndexSchema>;
/** One validated index entry. */
export type ScenarioIndexEntry = ScenarioIndex['scenarios'][number];

/**
 * Loads `<dir>/index.json`, or returns null when the folder has none (then its files load sorted by name). The index
 * must list every `*.json` scenario file of the folder, and every listed scenario must have its file: a scenario is
 * never silently left out or made up. Throws `InvalidInputError` naming the index, the field and the reason.
 *
 * @example (await loadScenarioIndex('scenarios/policy'))?.scenarios.map((entry) => entry.id)
 */
export async function loadScenarioIndex(dir: string): Promise<ScenarioIndex | null> {
  return readScenarioIndex(dir);
}

/** {@link loadScenarioIndex}, synchronously (the command line reads a `--scenario-dir`'s scenario list with it). */
export function readScenarioIndex(dir: string): ScenarioIndex | null {
  const path = join(dir, INDEX_FILE);
  if (!existsSync(path)) return null;
  const files = new Set(readdirSync(dir).filter((name) => name.endsWith('.json') && name !== INDEX_FILE));
  const listed = new Set<string>();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InvalidInputError(path, [{ path: '', message: `cannot read file: ${(error as Error).message}` }]);
  }
  const outcome = parseJsonFile(text, path, scenarioIndexSchema, {
    valid: (index) => {
      const issues: InputIssue[] = [];
      index.scenarios.forEach((entry, at) => {
        listed.add(`${entry.id}.json`);
        if (!files.has(`${entry.id}.json`))
          issues.push({ path: `scenarios[${at}].id`, message: `no file ${entry.id}.json in ${dir}` });
      });
      for (const file of [...files].sort())
        if (!listed.has(file))
          issues.push({
            path: 'scenarios',
            message: `${file} is in the folder but not in the index; add { "id": "${file.slice(0, -'.json'.length)}" } where it belongs in grid order`,
          });
      return issues;
    },
  });
  if (outcome instanceof InvalidInputError) throw outcome;
  return outcome;
}
