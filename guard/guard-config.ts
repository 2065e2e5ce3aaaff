// Stale-Retrieval Guard configuration (stale-retrieval.md §10.1): defaults, validation, environment variables.
import { z } from 'zod';
import { InvalidInputError, type InputIssue } from '#core/errors.js';
import { parsePythonFloat } from '#python-compat/index.js';

/** The guard's thresholds and switches. The paper's grid always used the defaults. */
export interface GuardConfig {
  /** α: minimum containment of content words for "same subject" (default 0.45). */
  subjectOverlap: number;
  /** When false, same subject alone is a conflict (no opposition signal needed). Default true. */
  requireOpposition: boolean;
  /** Stage 1: withhold records whose backend set a revocation field. Default true. */
  trustExplicitFields: boolean;
  /** β: at most floor(N·β) of the N input records are withheld in total (default 0.6). */
  maxWithheldRatio: number;
  /** Append the summary note when anything was withheld. Default true. */
  annotate: boolean;
}

/** The reference defaults (`GuardConfig` in [C] `guard/stale_guard.py`). */
export const DEFAULT_GUARD_CONFIG: Readonly<GuardConfig> = Object.freeze({
  subjectOverlap: 0.45,
  requireOpposition: true,
  trustExplicitFields: true,
  maxWithheldRatio: 0.6,
  annotate: true,
});

/** Schema of a partial configuration (registry arguments, CLI, env): finite numbers, no unknown keys. */
export const guardConfigSchema = z
  .object({
    subjectOverlap: z.number(),
    requireOpposition: z.boolean(),
    trustExplicitFields: z.boolean(),
    maxWithheldRatio: z.number(),
    annotate: z.boolean(),
  })
  .partial()
  .strict();

/**
 * Checks `config` against `schema` (a `.partial().strict()` object) and merges its defined fields over `defaults`;
 * throws `InvalidInputError` from `source` listing every bad field. Shared by the guard and guard-v2 settings.
 */
export function mergeGuardSettings<Config extends object>(
  schema: z.ZodType<Partial<Config>>,
  defaults: Config,
  config: unknown,
  source: string,
): Config {
  const parsed = schema.safeParse(config ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.flatMap((issue): InputIssue[] =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ path: key, message: 'unrecognized key' }))
        : [{ path: issue.path.join('.'), message: issue.message }],
    );
    throw new InvalidInputError(source, issues);
  }
  const defined = Object.entries(parsed.data).filter(([, value]) => value !== undefined);
  return { ...defaults, ...Object.fromEntries(defined) };
}

/** Merges a partial configuration over the defaults; throws `InvalidInputError` listing every bad field. */
export function resolveGuardConfig(config: Partial<GuardConfig> = {}, source = 'guard config'): GuardConfig {
  return mergeGuardSettings<GuardConfig>(guardConfigSchema, DEFAULT_GUARD_CONFIG, config, source);
}

/** The environment variables of §10.1, by configuration field. */
const GUARD_ENV_VARIABLES = {
  subjectOverlap: 'GUARD_SUBJECT_OVERLAP',
  requireOpposition: 'GUARD_REQUIRE_OPPOSITION',
  trustExplicitFields: 'GUARD_TRUST_EXPLICIT',
  maxWithheldRatio: 'GUARD_MAX_WITHHELD_RATIO',
} as const;

/**
 * Reads the guard's environment variables as the reference MCP server does: an unset or empty variable keeps the
 * default; numbers parse like Python `float()`; a switch is true unless its value is `false` in any case (so `0`
 * and `no` mean **true**, as in [C]). Returns only the fields that were set. Throws `InvalidInputError` for a
 * value that is not a number (Python would fail at start-up).
 *
 * @example const config = resolveGuardConfig(guardConfigFromEnv(process.env));
 */
export function guardConfigFromEnv(env: Readonly<Record<string, string | undefined>>): Partial<GuardConfig> {
  const config: Partial<GuardConfig> = {};
  const issues: InputIssue[] = [];
  const read = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  for (const field of ['subjectOverlap', 'maxWithheldRatio'] as const) {
    const name = GUARD_ENV_VARIABLES[field];
    const text = read(name);
    if (text === undefined) continue;
    const value = parsePythonFloat(text);
    if (value === null) issues.push({ path: name, message: `not a number: ${JSON.stringify(text)}` });
    else config[field] = value;
  }
  for (const field of ['requireOpposition', 'trustExplicitFields'] as const) {
    const text = read(GUARD_ENV_VARIABLES[field]);
    if (text !== undefined) config[field] = text.toLowerCase() !== 'false';
  }
  if (issues.length > 0) throw new InvalidInputError('environment', issues);
  return config;
}
