// Parses `pnpm integrity` flags into a plan; every bad flag is reported at once, naming the flag and the reason.
import { parseArgs } from 'node:util';
import { InvalidInputError, type InputIssue } from '#core/errors.js';
import { parseShard, type Shard } from '../../../run/shard.js';
import { expandFailOn } from '../../../run/threshold-file.js';
import { ALL_EDITS, VARIANT_VERSIONS } from './edits.js';
import { INTEGRITY_GATE } from './integrity-findings.js';
import type { EditId, EditSelection } from './integrity-result.js';
import type { FailOn } from './metric.js';

/** The resolved command line. */
export interface IntegrityFlags {
  /** Target ids, in the order given, without duplicates. */
  targets: string[];
  /** Edits to run, in column order. */
  edits: EditSelection[];
  /** Print the JSON result to stdout instead of the Markdown table. */
  json: boolean;
  /** The run directory, or null for `runs/integrity/<run id>` (the id derived from the spec, so the same command resumes). */
  outDir: string | null;
  /** `--shard i/n`: only the cells whose id hashes to shard i, or null. */
  shard: Shard | null;
  /** `--limit N`: at most N cells, round-robin over the targets, or null. */
  limit: number | null;
  /** `--dry-run`: list the cells and the run directory, run nothing. */
  dryRun: boolean;
  failOn: FailOn;
  /** `--sarif <file>`: write the ACCEPTED cells as SARIF 2.1.0 (not part of the run's identity), or null. */
  sarif: string | null;
  /** Keep each cell's scratch store for inspection. */
  keepStores: boolean;
  help: boolean;
}

export const INTEGRITY_USAGE = `usage: pnpm integrity --target <id>[,<id>…] [--edits T1,…,T9] [--json] [-o DIR] [--fail-on accepted|none|RULE|@FILE]
                      [--sarif FILE] [--shard i/n|auto] [--limit N] [--dry-run] [--keep-stores]

Measures whether a memory store notices edits made behind its back (integrity.md): per target and edit, a fresh
store is seeded through the target's own write path, stopped, edited once with generic tooling (SQL, Cypher, file
bytes), restarted, and read through the target's own read path. A target that declares the process-alive
position (memory-blackbox-alive) instead keeps its process up across the edit and reads and audits in it.

  --target <ids>       comma-separated target ids (see --help for the list)
  --edits <ids>        comma-separated edits, default T1,…,T9; T8:unrevoke is the variant that clears revocation fields
  --json               print {"targets":[{id, version, config, cells, metric}]} to stdout
  -o, --out <dir>      the run directory (default runs/integrity/<run id>, the id derived from the targets, edits
                       and flags, so the same command lands in the same directory). It holds manifest.json,
                       records.jsonl (one hash-chained line per cell), summary.json (the --json result with date,
                       command and exit code) and, as before, integrity.md, integrity.json, scorecard.md and
                       scorecard.html. The same command again resumes it: recorded cells are kept, a killed run
                       runs only the cells it had not recorded. pnpm verify-run DIR checks it; pnpm report DIR
                       writes its scorecard (md, html, json) to DIR/report
  --shard <i/n|auto>   only the cells whose id hashes to shard i of n (one run directory per shard;
                       default directory <run id>_shard<i>of<n>); pnpm merge <shard dirs> -o DIR joins them
  --limit <N>          at most N cells, round-robin over the targets
  --dry-run            print the run directory and the cells it would run, run nothing
  --fail-on <what>     accepted (default): exit 1 when an edit was ACCEPTED; none: record only; or rules
                       (repeatable) [target=… edit=…] accepted > 0, e.g. 'edit=T9 accepted > 0'; @<file>: the rules
                       of a text file, one a line (# comments skipped), as pnpm eval and pnpm frontdoor read it
  --sarif <file>       also write SARIF 2.1.0: one result per ACCEPTED edit (rule integrity/<edit>, located at the
                       run's summary.json, a fingerprint of target and edit, stable across runs)
  --keep-stores        keep every cell's scratch store (its path is printed)
  -h, --help           this text

Exit codes (integrity.md §7.2, precedence 2 > 3 > 1 > 0): 0 every evaluated edit rejected or reported ·
1 an edit was ACCEPTED, or bad flags, or a prerequisite (python3, the venv) is missing · 2 nothing could be
evaluated (controls failed) · 3 an edit did not land as intended (C3) or the adapter failed mid-edit.`;

const EDIT_PATTERN = /^(T[1-9])(?::(unrevoke))?$/;

/** Parses argv (without the command name). Throws `InvalidInputError` listing every problem. */
export function parseIntegrityFlags(argv: readonly string[], knownTargets: readonly string[]): IntegrityFlags {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      target: { type: 'string', multiple: true },
      edits: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      out: { type: 'string', short: 'o' },
      'fail-on': { type: 'string', multiple: true },
      sarif: { type: 'string' },
      'keep-stores': { type: 'boolean' },
      shard: { type: 'string' },
      limit: { type: 'string' },
      'dry-run': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const flags: IntegrityFlags = {
    targets: [],
    edits: [],
    json: values.json ?? false,
    outDir: values.out ?? null,
    failOn: 'accepted',
    sarif: null,
    keepStores: values['keep-stores'] ?? false,
    shard: null,
    limit: null,
    dryRun: values['dry-run'] ?? false,
    help: values.help ?? false,
  };
  if (flags.help) return flags;
  const issues: InputIssue[] = [];
  const list = (raw: string[] | undefined) =>
    (raw ?? [])
      .flatMap((item) => item.split(','))
      .map((item) => item.trim())
      .filter((item) => item !== '');
  for (const id of list(values.target)) {
    if (!knownTargets.includes(id))
      issues.push({ path: '--target', message: `unknown target "${id}"; available: ${knownTargets.join(', ')}` });
    else if (!flags.targets.includes(id)) flags.targets.push(id);
  }
  if (values.target === undefined)
    issues.push({ path: '--target', message: `required; available: ${knownTargets.join(', ')}` });
  const requested = list(values.edits);
  for (const text of requested) {
    const match = EDIT_PATTERN.exec(text.toUpperCase().replace(':UNREVOKE', ':unrevoke'));
    const edit = match?.[1] as EditId | undefined;
    const variant = (match?.[2] as 'unrevoke' | undefined) ?? null;
    if (!edit)
      issues.push({
        path: '--edits',
        message: `"${text}" is not one of ${ALL_EDITS.join(', ')} or ${Object.keys(VARIANT_VERSIONS).join(', ')}`,
      });
    else if (variant && !Object.hasOwn(VARIANT_VERSIONS, `${edit}:${variant}`))
      issues.push({ path: '--edits', message: `"${text}": ${edit} has no variant ${variant}` });
    else if (!flags.edits.some((known) => known.edit === edit && known.variant === variant))
      flags.edits.push({ edit, variant });
  }
  if (values.edits === undefined) flags.edits = ALL_EDITS.map((edit) => ({ edit, variant: null }));
  else if (requested.length === 0) issues.push({ path: '--edits', message: 'empty list' });
  flags.edits.sort(
    (a, b) =>
      ALL_EDITS.indexOf(a.edit) - ALL_EDITS.indexOf(b.edit) || Number(a.variant !== null) - Number(b.variant !== null),
  );
  if (values['fail-on'] !== undefined)
    try {
      const rules = expandFailOn(values['fail-on'], INTEGRITY_GATE);
      flags.failOn = rules.length === 1 && (rules[0] === 'accepted' || rules[0] === 'none') ? rules[0] : rules;
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      issues.push(...error.issues);
    }
  if (values.sarif !== undefined) {
    if (values.sarif.trim() === '') issues.push({ path: '--sarif', message: 'empty file name' });
    else flags.sarif = values.sarif;
  }
  if (values.shard !== undefined)
    try {
      flags.shard = parseShard(values.shard);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      issues.push(...error.issues);
    }
  if (values.limit !== undefined) {
    if (/^\s*[1-9]\d*\s*$/.test(values.limit)) flags.limit = Number(values.limit);
    else issues.push({ path: '--limit', message: `must be a whole number ≥ 1 (got "${values.limit}")` });
  }
  if (flags.outDir === '') issues.push({ path: '--out', message: 'empty directory name' });
  if (issues.length > 0) throw new InvalidInputError('pnpm integrity flags', issues);
  return flags;
}
