// Flag parsing for the commands: node's parseArgs plus negative numbers as values, nearest-flag suggestions, flag names in errors.
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { InvalidInputError } from '#core/errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * `parseArgs` in strict mode without positionals, with two repairs: a value that starts with `-` followed by a
 * digit (`--trials -3`) is taken as the flag's value (parseArgs calls it ambiguous), so the range check can name
 * it; and an unknown flag is one `InvalidInputError` that suggests the nearest known flag.
 *
 * @example parseFlags(['--trails', '3'], { trials: { type: 'string' } }) // throws: --trails: unknown option; did you mean --trials?
 */
export function parseFlags<O extends Options>(argv: readonly string[], options: O) {
  const args: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const token = argv[index]!;
    const next = argv[index + 1];
    const name = token.startsWith('--') ? token.slice(2) : null;
    if (
      name !== null &&
      !name.includes('=') &&
      options[name]?.type === 'string' &&
      next !== undefined &&
      /^-\d/.test(next)
    ) {
      args.push(`${token}=${next}`);
      index += 1;
    } else args.push(token);
  }
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false });
  } catch (error) {
    throw flagError(error as Error & { code?: string }, options);
  }
}

function flagError(error: Error & { code?: string }, options: Options): Error {
  const unknown = /^Unknown option '([^']+)'/.exec(error.message)?.[1];
  if (unknown !== undefined) {
    const nearest = nearestFlag(unknown.replace(/^-+/, ''), Object.keys(options));
    return new InvalidInputError('command line', [
      {
        path: unknown,
        message: `unknown option${nearest ? `; did you mean --${nearest}?` : ''} (--help lists them all)`,
      },
    ]);
  }
  const positional = /^Unexpected argument '([^']+)'/.exec(error.message)?.[1];
  if (positional !== undefined)
    return new InvalidInputError('command line', [
      { path: positional, message: 'unexpected argument: every value belongs to a flag (e.g. --model sim)' },
    ]);
  const missing = /^Option '(?:-\w, )?(--[\w-]+)[^']*' argument (missing|is ambiguous)/.exec(error.message);
  if (missing)
    return new InvalidInputError('command line', [
      {
        path: missing[1]!,
        message:
          missing[2] === 'missing'
            ? 'needs a value'
            : 'needs a value (the next word is a flag); use --flag=value for a value that starts with a dash',
      },
    ]);
  if (error.code?.startsWith('ERR_PARSE_ARGS'))
    return new InvalidInputError('command line', [{ path: '', message: error.message.split('\n')[0]! }]);
  return error;
}

/** The known flag within edit distance 2 (or a prefix match) of `given`, or null. */
export function nearestFlag(given: string, known: readonly string[]): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const name of known) {
    const distance = name.startsWith(given) && given.length >= 3 ? 0.5 : editDistance(given, name);
    if (distance <= 2 && (best === null || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of neighbours (`trails` → `trials`) cost 1. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1)
    for (let j = 1; j <= b.length; j += 1) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

/** The run-spec field paths that come from a flag, as the flag's name, so spec errors name what the user typed. */
const FLAG_OF_SPEC_PATH: Readonly<Record<string, string>> = {
  models: '--model',
  toolSteps: '--tool-steps',
  scenarioDir: '--scenario-dir',
  runId: '--run-id',
  maxErrorRate: '--max-error-rate',
  retryErrors: '--retry-errors',
  'cache.dir': '--cache-dir',
  'embedder.model': '--embedding-model',
  'extraction.model': '--extraction-model',
  baseURL: 'OPENAI_BASE_URL',
  'embedder.baseURL': 'STALEBENCH_EMBEDDINGS_BASE_URL',
  'engine.graph.uri': 'NEO4J_URI',
  'engine.vector.url': 'QDRANT_URL',
  'control.requestTimeoutMs': '--request-timeout',
  'control.maxConsecutiveErrors': '--max-consecutive-errors',
  'control.budgetUsd': '--budget-usd',
  'control.confirmAboveUsd': '--confirm-above-usd',
  'control.prices': '--prices',
};

/** `trials` → `--trials`, `models` → `--model`, `cache.dir` → `--cache-dir`; other paths are returned as flags of their first segment. */
export function flagOfSpecPath(path: string): string {
  // An item of a list is named by the list's flag (`models.1` → `--model`).
  const exact = FLAG_OF_SPEC_PATH[path] ?? FLAG_OF_SPEC_PATH[path.replace(/(\.\d+)+$/, '')];
  if (exact !== undefined) return exact;
  const head = path.split('.')[0] ?? path;
  if (head === '') return path;
  return `--${head.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/**
 * Why `path` cannot be (or become) a directory — an existing file, or a file on the way to it — or null. Checked
 * before anything is written, so `--out runs.txt/x` is one line, not a stack trace from the first mkdir.
 */
export function unusableDirectory(path: string): string | null {
  let current = resolve(path);
  for (;;) {
    let stats;
    try {
      stats = statSync(current);
    } catch {
      const parent = dirname(current);
      if (parent === current) return null;
      current = parent;
      continue;
    }
    if (stats.isDirectory()) return null;
    return current === resolve(path)
      ? `${current} is a file, not a directory`
      : `cannot create ${resolve(path)}: ${current} is a file, not a directory`;
  }
}
