import { parseArgs } from 'node:util';
import { EvalError, InvalidInputError, type InputIssue } from '#core/errors.js';
import { guardConfigFromEnv, resolveGuardConfig, type GuardConfig } from './guard-config.js';
import { parseIsoInstant, parsePythonFloat, parseStrictJson } from '#python-compat/index.js';
import type { GuardInput } from './guard-record.js';
import { applyStaleRetrievalGuard, type GuardResult } from './stale-retrieval-guard.js';
import { isEntryPoint } from '#core/entry-point.js';

const USAGE = `usage: pnpm guard [options] < records.json

Reads a JSON array of records (strings, or objects with fact/text/content/memory/body and metadata such as
expired_at, expiration_date, valid_at, created_at) and writes {"kept": [...], "withheld": [...], "notes": [...]}.
kept items are {"index", "record"} (the record exactly as given); withheld items are
{"index", "text", "reason", "stage", "superseded_by" (conflicts only)}; index = position in the input.

  --jsonl                      one JSON array per input line; one compact result per output line
                               (blank lines are skipped)
  --subject-overlap <x>        α, same-subject containment (default 0.45; env GUARD_SUBJECT_OVERLAP)
  --max-withheld-ratio <x>     β, cap floor(N·β) on withheld records (default 0.6; env GUARD_MAX_WITHHELD_RATIO)
  --no-require-opposition      same subject alone is a conflict (env GUARD_REQUIRE_OPPOSITION=false)
  --no-trust-explicit          skip stage 1, the backend's revocation fields (env GUARD_TRUST_EXPLICIT=false)
  --now <ISO>                  clock for expiration_date (default: current time; no timezone = UTC)
  --help, -h                   this text

Flags override environment variables. Exit codes: 0 ok · 1 invalid input, JSON or option.`;

/** Where the command writes (`process.stdout`, `process.stderr`, or a test buffer). */
export interface TextSink {
  write(chunk: string): unknown;
}

/**
 * Runs the command. Returns the exit code: 0, or 1 for bad JSON (every bad line is reported with its line and
 * column, and nothing is written to stdout), a non-array input, or a bad option or environment variable.
 *
 * @example await main(['--now', '2026-01-01'], Readable.from(['[{"fact": "x", "expired_at": "2025-01-01"}]']), process.stdout, process.stderr)
 */
export async function main(
  argv: readonly string[],
  stdin: AsyncIterable<string | Uint8Array>,
  stdout: TextSink,
  stderr: TextSink,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  try {
    const { values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        jsonl: { type: 'boolean' },
        'subject-overlap': { type: 'string' },
        'max-withheld-ratio': { type: 'string' },
        'no-require-opposition': { type: 'boolean' },
        'no-trust-explicit': { type: 'boolean' },
        now: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      stdout.write(`${USAGE}\n`);
      return 0;
    }
    const issues: InputIssue[] = [];
    const flags: Partial<GuardConfig> = {};
    const number = (
      flag: 'subject-overlap' | 'max-withheld-ratio',
      field: 'subjectOverlap' | 'maxWithheldRatio',
    ): void => {
      const text = values[flag];
      if (text === undefined) return;
      const value = parsePythonFloat(text);
      if (value === null) issues.push({ path: `--${flag}`, message: `not a number: ${JSON.stringify(text)}` });
      else flags[field] = value;
    };
    number('subject-overlap', 'subjectOverlap');
    number('max-withheld-ratio', 'maxWithheldRatio');
    if (values['no-require-opposition']) flags.requireOpposition = false;
    if (values['no-trust-explicit']) flags.trustExplicitFields = false;
    let now = new Date();
    if (values.now !== undefined) {
      const instant = parseIsoInstant(values.now);
      if (instant === null)
        issues.push({ path: '--now', message: `not an ISO-8601 date or datetime: ${JSON.stringify(values.now)}` });
      else now = new Date(instant.seconds * 1000 + Math.floor(instant.microseconds / 1000));
    }
    if (issues.length > 0) throw new InvalidInputError('options', issues);
    const config = resolveGuardConfig({ ...guardConfigFromEnv(env), ...flags }, 'guard options');
    const batches = parseInput(await readAll(stdin), values.jsonl ?? false);
    // Any JSON value is a valid record at run time (numbers, null, arrays: Python str() text, no fields).
    const results = batches.map((records) => toOutput(applyStaleRetrievalGuard(records as GuardInput[], config, now)));
    if (values.jsonl) for (const result of results) stdout.write(`${JSON.stringify(result)}\n`);
    else stdout.write(`${JSON.stringify(results[0], null, 2)}\n`);
    return 0;
  } catch (error) {
    const known = error instanceof EvalError || (error instanceof TypeError && 'code' in error);
    stderr.write(`guard: ${error instanceof Error ? error.message : String(error)}\n`);
    if (error instanceof TypeError && 'code' in error) stderr.write(`\n${USAGE}\n`);
    if (!known && error instanceof Error && error.stack) stderr.write(`${error.stack}\n`);
    return 1;
  }
}

/** One array (whole input) or one array per non-blank line; every problem is collected before throwing. */
function parseInput(text: string, jsonl: boolean): unknown[][] {
  const issues: InputIssue[] = [];
  const batches: unknown[][] = [];
  const input = text.replace(/^\uFEFF/, '');
  const lines = jsonl ? input.split('\n').map((line) => line.replace(/\r$/, '')) : [input];
  lines.forEach((line, at) => {
    if (jsonl && line.trim() === '') return;
    const outcome = parseStrictJson(line);
    const where = jsonl ? `line ${at + 1}` : '';
    if (!outcome.ok) {
      const { lineno, colno, msg } = outcome.error;
      issues.push({ path: `line ${jsonl ? at + 1 : lineno}, column ${colno}`, message: `invalid JSON: ${msg}` });
    } else if (!Array.isArray(outcome.value)) {
      issues.push({ path: where, message: `expected a JSON array of records, got ${kindOf(outcome.value)}` });
    } else {
      batches.push(outcome.value);
    }
  });
  if (issues.length > 0) throw new InvalidInputError(jsonl ? 'stdin (JSON lines)' : 'stdin (JSON)', issues);
  return batches;
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The JSON shape of a verdict; `superseded_by` is snake_case as in the reference's `withheld` entries. */
function toOutput(result: GuardResult): { kept: unknown[]; withheld: unknown[]; notes: string[] } {
  return {
    kept: result.kept.map(({ index, record }) => ({ index, record })),
    withheld: result.withheld.map(({ index, text, reason, stage, supersededBy }) =>
      supersededBy === undefined
        ? { index, text, reason, stage }
        : { index, text, reason, stage, superseded_by: supersededBy },
    ),
    notes: result.notes,
  };
}

async function readAll(stdin: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  for await (const chunk of stdin) text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

if (isEntryPoint(import.meta.url)) {
  void main(process.argv.slice(2), process.stdin, process.stdout, process.stderr).then((code) => {
    process.exitCode = code;
  });
}
