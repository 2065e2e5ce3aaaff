// The one reader of scenario-like JSON files (policy, exploit, index, front-door fixtures): syntax errors by line and
// column, schema errors by field path, every problem of every file at once, each naming its file.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { z } from 'zod';
import { InvalidInputError, type InputIssue } from '#core/errors.js';
import { parseStrictJson } from '#python-compat/index.js';

/** Checks of one file beyond its schema. */
export interface JsonFileChecks<T> {
  /** Problems of the raw JSON value, reported together with the schema's (e.g. an id that is not the file name). */
  raw?: (data: unknown) => InputIssue[];
  /** Problems a schema cannot see, checked once the value is valid. */
  valid?: (value: T) => InputIssue[];
}

/** A file's value, or the error naming its every problem (returned, not thrown, so that every file is seen). */
export type JsonFileOutcome<T> = T | InvalidInputError;

/**
 * Parses and validates one JSON document. A syntax error is one issue `invalid JSON at line L, column C: Expecting
 * value` (strict JSON through `parseStrictJson`, the one scanner: CPython's json.loads message and position, columns
 * in code points); schema problems are one issue per field (`distractors[1]`), each unknown key its own;
 * `checks.raw` problems come with them and `checks.valid` problems once the schema holds.
 *
 * @example parseJsonFile('{"id": 1}', 'x.json', scenarioSchema) // InvalidInputError: x.json, id: expected string ...
 */
export function parseJsonFile<S extends z.ZodType>(
  text: string,
  source: string,
  schema: S,
  checks: JsonFileChecks<z.output<S>> = {},
): JsonFileOutcome<z.output<S>> {
  const json = parseStrictJson(text);
  if (!json.ok)
    return new InvalidInputError(source, [
      { path: '', message: `invalid JSON at line ${json.error.lineno}, column ${json.error.colno}: ${json.error.msg}` },
    ]);
  const parsed = schema.safeParse(json.value);
  const issues = [
    ...(parsed.success ? [] : parsed.error.issues.flatMap(toInputIssues)),
    ...(checks.raw?.(json.value) ?? []),
  ];
  if (parsed.success && issues.length === 0) issues.push(...(checks.valid?.(parsed.data) ?? []));
  return parsed.success && issues.length === 0 ? parsed.data : new InvalidInputError(source, issues);
}

/** Reads, parses and validates one JSON file (`parseJsonFile`); an unreadable file is an issue too. */
export async function readJsonFile<S extends z.ZodType>(
  path: string,
  schema: S,
  checks: JsonFileChecks<z.output<S>> = {},
): Promise<JsonFileOutcome<z.output<S>>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return new InvalidInputError(path, [{ path: '', message: `cannot read file: ${(error as Error).message}` }]);
  }
  return parseJsonFile(text, path, schema, checks);
}

/**
 * The values of several files, or one error: a single bad file's error as it is, several merged under `label`
 * with each issue path prefixed by its file name (`c_bad.json:v1`). Nothing is returned unless every file is good.
 */
export function allOrNothing<T>(outcomes: readonly JsonFileOutcome<T>[], label: string): T[] {
  const failures = outcomes.filter((outcome): outcome is InvalidInputError => outcome instanceof InvalidInputError);
  const [first] = failures;
  if (first && failures.length === 1) throw first;
  if (first) {
    const issues = failures.flatMap((failure) =>
      failure.issues.map((issue) => ({ ...issue, path: joinPath(basename(failure.source), issue.path, ':') })),
    );
    throw new InvalidInputError(`${label} (${failures.length} of ${outcomes.length} invalid)`, issues);
  }
  return outcomes as T[];
}

/** The raw check that a file's `id` equals its file name (`mfa_waiver_access.json` holds `"id": "mfa_waiver_access"`). */
export function idIsFileName(path: string): (data: unknown) => InputIssue[] {
  const expected = basename(path, '.json');
  return (data) => {
    const id = (data as { id?: unknown } | null)?.id;
    return typeof id === 'string' && id !== expected
      ? [{ path: 'id', message: `"${id}" does not match the file name (expected "${expected}")` }]
      : [];
  };
}

/** A zod issue as input issues; unknown keys get one issue each, under their own path. */
function toInputIssues(issue: z.core.$ZodIssue): InputIssue[] {
  const at = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => ({ path: joinPath(at, key, '.'), message: 'unrecognized key' }));
  return [{ path: at, message: issue.message }];
}

/** `['distractors', 0]` → `distractors[0]`. */
function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (joined, key) => (typeof key === 'number' ? `${joined}[${key}]` : joinPath(joined, String(key), '.')),
    '',
  );
}

function joinPath(head: string, tail: string, separator: string): string {
  return head && tail ? `${head}${separator}${tail}` : head || tail;
}
