// The front-door suite (integrity.md §9): one unit per target × attack, each a fresh instance of the target running
// every fixture × channel × variant of the attack; the summary is the results document `pnpm frontdoor` has always
// written and printed.
import { join } from 'node:path';
import { z } from 'zod';
import { distinct } from '#core/distinct-list.js';
import { failOnArgument } from '../../run/threshold-file.js';
import { InvalidInputError } from '#core/errors.js';
import { knownId } from '#core/registry.js';
import { sha256 } from '../../run-log/json-files.js';
import { frontdoorSuiteReport } from '../../../analysis/index.js';
import { FRONTDOOR_TARGET_IDS, frontdoorTarget, type FrontdoorTarget } from './targets/targets.js';
import {
  ATTACK_NAMES,
  loadFixtureSet,
  type AttackName,
  type FixtureFile,
} from '../../../scenarios/frontdoor/fixture.js';
import { CHANNELS, type Channel } from './harness/channels.js';
import {
  FRONTDOOR_GATE,
  frontdoorExitCode,
  frontdoorGateCells,
  readFrontdoorResults,
  type FrontdoorRecord,
  type FrontdoorResults,
} from './harness/frontdoor-results.js';

export type { FrontdoorRecord } from './harness/frontdoor-results.js';
import { cellLine, embedderLabel, isLexical, measureCell, rowNotesOf } from './harness/run-frontdoor.js';
import { sharedParts, variantsOf, type SharedParts } from './harness/shared-parts.js';
import { loadFrontdoorTarget } from './harness/target-handles.js';
import type { SuiteCiV1, SuiteUnit, SuiteV1 } from '../../run/suite.js';

/** The identity of a fixture set: the sha256 of its files as read. */
export const fixtureSetHash = (fixtures: Record<AttackName, FixtureFile>): string => sha256(JSON.stringify(fixtures));

/**
 * The run's identity: targets, attacks, channels, variants, embedder, fixtures and what fails the check. Everything
 * but the targets defaults to what `pnpm frontdoor` takes without flags, so `pnpm eval --suite frontdoor --targets x`
 * is the same run (same spec, same run directory name) as `pnpm frontdoor --target x`.
 */
export const frontdoorArgs = z
  .object({
    targets: distinct(z.array(knownId({ kind: 'target', ids: FRONTDOOR_TARGET_IDS })).min(1)),
    attacks: distinct(z.array(z.enum(ATTACK_NAMES)).min(1)).default([...ATTACK_NAMES]),
    channels: distinct(z.array(z.enum(CHANNELS)).min(1)).default([...CHANNELS]),
    mutate: z.boolean().default(false),
    mutationModel: z.string().nullable().default(null),
    embedder: z
      .discriminatedUnion('id', [
        z.object({ id: z.literal('lexical') }),
        z.object({ id: z.literal('openai'), model: z.string(), baseURL: z.string().nullable() }),
      ])
      .default({ id: 'lexical' }),
    /**
     * `--fixtures` as given (null: scenarios/frontdoor), and the sha256 of the fixture set read from it; default: the
     * built-in set, read and hashed when the arguments are parsed. A directory alone (`--fixtures DIR`, or `{dir}`) is
     * read and hashed the same way. Setup refuses a set that no longer hashes to it.
     */
    fixtures: z
      .preprocess(
        (value) => (typeof value === 'string' ? { dir: value } : value),
        z
          .object({
            dir: z.string().nullable(),
            sha256: z
              .string()
              .regex(/^[0-9a-f]{64}$/)
              .optional(),
          })
          .strict()
          .transform(({ dir, sha256 }, context) => {
            if (sha256 !== undefined) return { dir, sha256 };
            try {
              return { dir, sha256: fixtureSetHash(loadFixtureSet(dir ?? undefined)) };
            } catch (error) {
              context.addIssue({ code: 'custom', message: `cannot read the fixture set: ${(error as Error).message}` });
              return z.NEVER;
            }
          }),
      )
      .default(() => ({ dir: null, sha256: fixtureSetHash(loadFixtureSet()) })),
    failOn: failOnArgument(['surfaced', 'none'], FRONTDOOR_GATE, 'none'),
  })
  // A misspelt argument (`--args '{"attack": [...]}'`) is refused by name, never dropped for the default.
  .strict();

/** `pnpm frontdoor`'s arguments as the run directory records them. */
export type FrontdoorArgs = z.infer<typeof frontdoorArgs>;

/** One cell: an attack on one target. */
export interface FrontdoorUnit extends SuiteUnit {
  target: string;
  attack: AttackName;
}

/** How this invocation reaches its fixtures and endpoints (not part of the run's identity). */
export interface FrontdoorSuiteSettings {
  /** Environment (OPENAI_API_KEY, OPENAI_BASE_URL for a mutation model). */
  env: Readonly<Record<string, string | undefined>>;
  /** The fixture set the command read (and hashed into the args); read from `args.fixtures.dir` when absent. */
  fixtures?: Record<AttackName, FixtureFile>;
}

/** The shared parts, the channels, and the registry entries of the targets by id. */
type Setup = SharedParts & { channels: readonly Channel[]; targets: Map<string, FrontdoorTarget> };

/**
 * The front-door grid suite.
 *
 * @example const suite = createFrontdoorSuite({ env: process.env });
 */
export function createFrontdoorSuite(
  settings: FrontdoorSuiteSettings,
): SuiteV1<FrontdoorArgs, FrontdoorUnit, FrontdoorRecord, FrontdoorResults, Setup> {
  return {
    specificationVersion: 'v1',
    id: 'frontdoor',
    args: frontdoorArgs,
    plan: (args) =>
      args.targets.flatMap((target) =>
        args.attacks.map((attack) => ({ id: `${target}/${attack}`, cell: target, target, attack })),
      ),
    async setup(args) {
      const fixtures = settings.fixtures ?? loadFixtureSet(args.fixtures.dir ?? undefined);
      // The run is bound to the fixtures' content: a set edited since (or a hash of another set) is refused.
      const found = fixtureSetHash(fixtures);
      if (found !== args.fixtures.sha256)
        throw new InvalidInputError(args.fixtures.dir ?? 'scenarios/frontdoor', [
          {
            path: 'fixtures.sha256',
            message: `the fixture set hashes to ${found.slice(0, 12)}…, not the run's ${args.fixtures.sha256.slice(0, 12)}…: it changed since the run started, or the hash is of another set`,
          },
        ]);
      const parts = await sharedParts(args, fixtures, settings.env);
      const targets = new Map<string, FrontdoorTarget>();
      for (const id of args.targets) targets.set(id, await frontdoorTarget(id));
      return { ...parts, channels: args.channels, targets };
    },
    async runUnit(unit, { setup, progress, workDir }) {
      const target = setup.targets.get(unit.target)!;
      // A fresh instance per cell: a cell's verdict cannot depend on which cells ran before it in this process.
      const backend = await loadFrontdoorTarget(target, setup, join(workDir, 'store'));
      await backend.open();
      try {
        const cell = await measureCell(
          backend,
          setup,
          unit.attack,
          rowNotesOf(target, backend, isLexical(setup.embedder)),
        );
        progress(cellLine(unit.target, cell));
        return {
          target: unit.target,
          version: target.version(),
          embedder: embedderLabel(target, setup.embedder),
          summary: backend.description.summary,
          cell,
        };
      } finally {
        await backend.close();
      }
    },
    summarize(records, args, run) {
      const targets = args.targets.flatMap((id) => {
        const own = records.filter((record) => record.target === id);
        if (own.length === 0) return []; // a shard without a unit of this target
        const { version, embedder, summary } = own[0]!;
        return [{ id, version, embedder, summary, cells: own.map((record) => record.cell) }];
      });
      return {
        version: 1,
        tool: 'stalebench frontdoor',
        createdAt: run.startedAt,
        channels: [...args.channels],
        variants: variantsOf(args.mutate),
        targets,
      };
    },
    exitCode: (summary, args) => frontdoorExitCode(summary, args.failOn),
    report: frontdoorSuiteReport,
    ci: FRONTDOOR_CI,
  };
}

/** `pnpm frontdoor` in CI: its command, `--fail-on surfaced|none`, exit codes, one finding per surfaced cell. */
const FRONTDOOR_CI: SuiteCiV1<FrontdoorResults> = {
  command: { script: join('pipeline', 'suites', 'frontdoor', 'harness', 'frontdoor-command.ts'), args: [] },
  gate: FRONTDOOR_GATE,
  exitMeanings: { 0: 'ok', 1: 'a cell surfaced under --fail-on surfaced, or a usage error', 2: 'every cell is n/a' },
  readSummary: readFrontdoorResults,
  findings: (results) => frontdoorGateCells(results).flatMap((cell) => (cell.finding ? [cell.finding] : [])),
};
