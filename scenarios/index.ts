// Scenario registry and loader: the nine policy scenarios in grid order, validated before anything runs.
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { parseStrictJson } from '../python-compat/index.js';
import { InvalidInputError, UnknownComponentError, type InputIssue } from '../pipeline/errors.js';
import { scenarioSchema, type Scenario } from './scenario.js';

/** Policy scenario ids in grid order (§4): the four payload scenarios, then the five scenario-family ones. */
export const POLICY_SCENARIO_IDS = [
  'privilege_escalation_deploy_approval',
  'data_exfiltration_pii_export',
  'guardrail_bypass_rollback',
  'instruction_injection_in_memory',
  'guardrail_bypass_disclose_card',
  'destructive_op_delete_backups',
  'over_limit_financial_transfer',
  'compliance_log_deletion',
  'mfa_waiver_access',
] as const;

/** A registered policy scenario id. */
export type PolicyScenarioId = (typeof POLICY_SCENARIO_IDS)[number];

/** Options of `loadScenarios`. */
export interface LoadScenariosOptions {
  /** Folder holding `<id>.json`; defaults to `scenarios/policy/` beside this module. */
  dir?: string;
  /** Subset to load (returned in grid order); defaults to all nine. */
  ids?: readonly string[];
}

const DEFAULT_DIR = fileURLToPath(new URL('./policy/', import.meta.url));

/**
 * Loads and validates the registered policy scenarios, in grid order. Every file is read and checked
 * before anything is returned. Throws `UnknownComponentError` for an id that is not registered, and
 * `InvalidInputError` (source = the file, one issue per problem with its field path) for a bad file.
 *
 * @example const [deployApproval] = await loadScenarios({ ids: ['privilege_escalation_deploy_approval'] });
 */
export async function loadScenarios(options: LoadScenariosOptions = {}): Promise<Scenario[]> {
  const dir = options.dir ?? DEFAULT_DIR;
  const registered: readonly string[] = POLICY_SCENARIO_IDS;
  for (const id of options.ids ?? []) {
    if (!registered.includes(id)) throw new UnknownComponentError('scenario', id, registered);
  }
  const selected = options.ids ? registered.filter((id) => options.ids?.includes(id)) : registered;
  return loadAll(selected.map((id) => join(dir, `${id}.json`)));
}

/** Loads and validates one user-supplied scenario file; its `id` must equal its file name. */
export async function loadScenarioFile(path: string): Promise<Scenario> {
  const outcome = await readScenario(path);
  if (outcome instanceof InvalidInputError) throw outcome;
  return outcome;
}

/** Loads and validates every `*.json` file of a folder, sorted by file name; all or nothing. */
export async function loadScenarioDir(dir: string): Promise<Scenario[]> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = code === 'ENOENT' ? 'directory does not exist' : code === 'ENOTDIR' ? 'not a directory' : `cannot read directory: ${(error as Error).message}`;
    throw new InvalidInputError(dir, [{ path: '--scenario-dir', message }]);
  }
  const names = entries.filter((name) => name.endsWith('.json')).sort();
  if (names.length === 0) throw new InvalidInputError(dir, [{ path: '--scenario-dir', message: 'no scenario files (*.json) in this directory' }]);
  return loadAll(names.map((name) => join(dir, name)));
}

/** Reads every file, then throws if any failed: one file's error as is, several merged (paths prefixed). */
async function loadAll(paths: readonly string[]): Promise<Scenario[]> {
  const outcomes = await Promise.all(paths.map(readScenario));
  const failures = outcomes.filter((outcome) => outcome instanceof InvalidInputError);
  const [first] = failures;
  if (first && failures.length === 1) throw first;
  if (first) {
    const issues = failures.flatMap((failure) =>
      failure.issues.map((issue) => ({ ...issue, path: joinPath(basename(failure.source), issue.path, ':') })),
    );
    throw new InvalidInputError(`scenario files (${failures.length} of ${paths.length} invalid)`, issues);
  }
  return outcomes as Scenario[];
}

/** One file: read, parse, validate, check the id; problems are returned (not thrown) so all files are seen. */
async function readScenario(path: string): Promise<Scenario | InvalidInputError> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return new InvalidInputError(path, [{ path: '', message: `cannot read file: ${(error as Error).message}` }]);
  }
  const json = parseStrictJson(text);
  if (!json.ok) {
    const { lineno, colno, msg } = json.error;
    return new InvalidInputError(path, [{ path: '', message: `invalid JSON at line ${lineno}, column ${colno}: ${msg}` }]);
  }
  const data = json.value;
  const parsed = scenarioSchema.safeParse(data);
  const issues = parsed.success ? [] : parsed.error.issues.flatMap(toInputIssues);
  const expectedId = basename(path, '.json');
  const id = (data as { id?: unknown } | null)?.id;
  if (typeof id === 'string' && id !== expectedId) {
    issues.push({ path: 'id', message: `"${id}" does not match the file name (expected "${expectedId}")` });
  }
  if (!parsed.success || issues.length > 0) return new InvalidInputError(path, issues);
  return parsed.data;
}

/** A zod issue as input issues; unknown keys get one issue each, under their own path. */
function toInputIssues(issue: z.core.$ZodIssue): InputIssue[] {
  const at = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: joinPath(at, key, '.'), message: 'unrecognized key' }));
  }
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
