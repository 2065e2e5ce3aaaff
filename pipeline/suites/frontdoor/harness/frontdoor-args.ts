// `pnpm frontdoor` flags → a validated options object; any problem is one line naming the flag.
import { parseArgs } from 'node:util';
import { FRONTDOOR_TARGET_IDS } from '../targets/targets.js';
import { ATTACK_NAMES, type AttackName } from '../../../../scenarios/frontdoor/fixture.js';
import { EvalError, InvalidInputError } from '#core/errors.js';
import { parseShard, type Shard } from '../../../run/shard.js';
import { expandFailOn } from '../../../run/threshold-file.js';
import { FRONTDOOR_GATE, type FrontdoorFailOn } from './frontdoor-results.js';
import { CHANNELS, type Channel } from './channels.js';

export const FRONTDOOR_USAGE = `usage: pnpm frontdoor --target <id>[,<id>...] [options]
       pnpm frontdoor --hunt --target <id> [options]

  --target <ids>          ${FRONTDOOR_TARGET_IDS.join(', ')}
                          (inspeximus*: the venv of bash .ci/install; *@3.0.0: pnpm stores install
                          inspeximus-3.0.0; langgraph-store-py, @3.1.2: pnpm stores install langgraph-store-py,
                          langgraph-store-py-latest)
  --attacks <names>       default: all six (${ATTACK_NAMES.join(', ')})
  --channels <names>      default: ${CHANNELS.join(',')}
  --mutate                also run every attacker write as its mutations (paraphrase, homoglyph,
                          zero-width, case-flip, dilute, split); a cell holds only if it holds on all
  --mutation-model <m>    paraphrase with this endpoint model (OPENAI_BASE_URL, OPENAI_API_KEY)
                          instead of the fixtures' fixed paraphrases
  --embedder <id>         lexical (default, offline; rows ranked by it say so) or openai
  --embedding-model <m>   model for --embedder openai, at STALEBENCH_EMBEDDINGS_BASE_URL
  --fixtures <dir>        fixture files (default: scenarios/frontdoor)
  --json                  print the results JSON instead of the Markdown table
  --out, -o <dir>         the run directory (default runs/frontdoor/<run id>, the id derived from the
                          targets, attacks, channels, variants, embedder, fixtures and --fail-on, so the same
                          command lands in the same directory): manifest.json, records.jsonl (one hash-chained
                          line per cell), summary.json, and results.json, scorecard.md, scorecard.html as before.
                          The same command again resumes it; pnpm verify-run DIR checks it; pnpm report DIR
                          writes its scorecard (md, html, json) to DIR/report. --hunt: its files (default
                          runs/frontdoor), not a run directory
  --fail-on <when>        surfaced: exit 1 when any cell surfaced; none (default); or rules (repeatable)
                          [target=… attack=…] surfaced > 0; @<file>: the rules of a text file, one a line
                          (# comments skipped), as pnpm eval and pnpm integrity read it
  --sarif <file>          also write SARIF 2.1.0: one result per surfaced cell (rule frontdoor/<attack>,
                          located at the run's results.json, a fingerprint of target and attack, stable
                          across runs); not with --hunt
  --shard <i/n|auto>      only the cells whose id hashes to shard i of n (default directory
                          <run id>_shard<i>of<n>); pnpm merge <shard dirs> -o DIR joins them
  --limit <N>             at most N cells, round-robin over the targets
  --dry-run               print the run directory and the cells it would run, run nothing
  --hunt                  the searching attacker: first proven landing per write-based attack
  --consent <file>        operator consent file naming network endpoints the hunt may touch

exit codes: 0 ok · 1 a cell surfaced under --fail-on surfaced, or a usage/config error · 2 every cell n/a`;

/** What the command was asked to do. */
export interface FrontdoorOptions {
  targets: string[];
  attacks: AttackName[];
  channels: Channel[];
  mutate: boolean;
  mutationModel: string | null;
  embedder: { id: 'lexical' } | { id: 'openai'; model: string; baseURL: string | null };
  fixtures: string | null;
  json: boolean;
  /** `-o`: the run directory (the hunt's output directory), or null for the default. */
  out: string | null;
  /** `--shard i/n`: only the cells whose id hashes to shard i, or null. */
  shard: Shard | null;
  /** `--limit N`: at most N cells, round-robin over the targets, or null. */
  limit: number | null;
  /** `--dry-run`: list the cells and the run directory, run nothing. */
  dryRun: boolean;
  failOn: FrontdoorFailOn;
  /** `--sarif <file>`: the surfaced cells as SARIF 2.1.0 (not part of the run's identity), or null. */
  sarif: string | null;
  hunt: boolean;
  consent: string | null;
  help: boolean;
}

/** A usage error: the command prints its message as one line and exits 1. */
class UsageError extends EvalError {
  constructor(message: string) {
    super('usage', message);
  }
}

function listOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: readonly T[],
): T[] {
  if (value === undefined) return [...fallback];
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) throw new UsageError(`${flag}: empty list (choose from ${allowed.join(', ')})`);
  const unknown = items.find((item) => !(allowed as readonly string[]).includes(item));
  if (unknown !== undefined) throw new UsageError(`${flag}: unknown "${unknown}" (choose from ${allowed.join(', ')})`);
  return [...new Set(items)] as T[];
}

/** Parses argv (after `frontdoor`) and the environment. Throws `UsageError` with one line on any problem. */
export function parseFrontdoorArgs(argv: readonly string[], env: NodeJS.ProcessEnv): FrontdoorOptions {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const help = values.help === true;
  if (!help && values.target === undefined)
    throw new UsageError(`--target is required (one or more of ${FRONTDOOR_TARGET_IDS.join(', ')})`);
  const hunt = values.hunt === true;
  // The hunt's target goes to the authorisation gate as typed: the gate, not the parser, decides about URLs.
  if (hunt && (values.target ?? '').includes(',')) throw new UsageError('--hunt takes exactly one --target');
  const targets = help
    ? []
    : hunt
      ? [values.target!.trim()]
      : listOf('--target', values.target, FRONTDOOR_TARGET_IDS, []);
  const embedderId = values.embedder ?? env.STALEBENCH_EMBEDDER ?? 'lexical';
  if (embedderId !== 'lexical' && embedderId !== 'openai')
    throw new UsageError(`--embedder: unknown "${embedderId}" (choose from lexical, openai)`);
  const model = values['embedding-model'] ?? env.STALEBENCH_EMBEDDING_MODEL;
  if (embedderId === 'openai' && !model)
    throw new UsageError('--embedder openai needs --embedding-model <m> (or STALEBENCH_EMBEDDING_MODEL)');
  let failOn: FrontdoorFailOn = 'none';
  if (values['fail-on'] !== undefined)
    try {
      const rules = expandFailOn(values['fail-on'], FRONTDOOR_GATE);
      failOn = rules.length === 1 && (rules[0] === 'surfaced' || rules[0] === 'none') ? rules[0] : rules;
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      const named = error.issues.map((issue) => (issue.path === '--fail-on' ? '' : `${issue.path}: `) + issue.message);
      throw new UsageError(`--fail-on: ${named.join('; ')}`);
    }
  if (values['mutation-model'] !== undefined && values.mutate !== true)
    throw new UsageError('--mutation-model needs --mutate');
  // The hunt's attempts depend on the ones before them (it stops an attack at its first landing): one search, no run
  // directory to shard, limit or list.
  const gridOnly = (['shard', 'limit', 'dry-run', 'sarif'] as const).find((flag) => values[flag] !== undefined);
  if (hunt && gridOnly) throw new UsageError(`--${gridOnly} is not available with --hunt (the hunt is one search)`);
  if (values.out === '') throw new UsageError('--out: empty directory name');
  if (values.sarif === '') throw new UsageError('--sarif: empty file name');
  let shard: Shard | null = null;
  if (values.shard !== undefined)
    try {
      shard = parseShard(values.shard);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      throw new UsageError(`--shard: ${error.issues.map((issue) => issue.message).join('; ')}`);
    }
  if (values.limit !== undefined && !/^\s*[1-9]\d*\s*$/.test(values.limit))
    throw new UsageError(`--limit: must be a whole number ≥ 1 (got "${values.limit}")`);
  return {
    targets,
    attacks: listOf('--attacks', values.attacks, ATTACK_NAMES, ATTACK_NAMES),
    channels: listOf('--channels', values.channels, CHANNELS, CHANNELS),
    mutate: values.mutate === true,
    mutationModel: values['mutation-model'] ?? null,
    embedder:
      embedderId === 'openai'
        ? { id: 'openai', model: model!, baseURL: env.STALEBENCH_EMBEDDINGS_BASE_URL ?? env.OPENAI_BASE_URL ?? null }
        : { id: 'lexical' },
    fixtures: values.fixtures ?? null,
    json: values.json === true,
    out: values.out ?? null,
    shard,
    limit: values.limit === undefined ? null : Number(values.limit),
    dryRun: values['dry-run'] === true,
    failOn,
    sarif: values.sarif ?? null,
    hunt,
    consent: values.consent ?? null,
    help,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      target: { type: 'string' },
      attacks: { type: 'string' },
      channels: { type: 'string' },
      mutate: { type: 'boolean' },
      'mutation-model': { type: 'string' },
      embedder: { type: 'string' },
      'embedding-model': { type: 'string' },
      fixtures: { type: 'string' },
      json: { type: 'boolean' },
      out: { type: 'string', short: 'o' },
      'fail-on': { type: 'string', multiple: true },
      sarif: { type: 'string' },
      shard: { type: 'string' },
      limit: { type: 'string' },
      'dry-run': { type: 'boolean' },
      hunt: { type: 'boolean' },
      consent: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
