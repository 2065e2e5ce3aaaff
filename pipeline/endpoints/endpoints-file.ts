// `--endpoints <file>`: the endpoint pool of the decision models, validated as a whole; keys come from the environment.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { InvalidInputError, type InputIssue } from '#core/errors.js';

/** One endpoint as the file describes it: no key, only the name of the environment variable that holds it. */
const endpointSchema = z
  .object({
    /** A label for logs and the manifest; default `endpoint-<n>` (1-based, in file order). */
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only')
      .optional(),
    /** Base URL including `/v1` (an OpenAI-compatible server, a LiteLLM proxy). */
    baseURL: z.string().url(),
    /** The environment variable holding this endpoint's key (read at start, never written anywhere). */
    keyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name (letters, digits, underscore)'),
    /** Requests in flight at once on this endpoint, at most. */
    maxConcurrency: z.number().int().min(1).max(1024),
    /** Share of new requests when several endpoints have room (default 1). */
    weight: z.number().positive().max(1000).default(1),
    /** The `--model` aliases it serves; absent = every endpoint alias of the run. */
    models: z.array(z.string().min(1)).min(1).optional(),
  })
  .strict();

const fileSchema = z.object({ endpoints: z.array(endpointSchema).min(1) }).strict();

/** One endpoint of the pool, key resolved (the key never leaves the process). */
export interface PoolEndpoint {
  name: string;
  baseURL: string;
  keyEnv: string;
  apiKey: string;
  maxConcurrency: number;
  weight: number;
  /** Aliases served; null = every endpoint alias. */
  models: readonly string[] | null;
}

/** A key-shaped field in the file: keys belong in the environment, the file only names the variable. */
const KEY_FIELDS = /^(api_?key|key|token|secret|authorization)$/i;

function fileIssues(raw: unknown): InputIssue[] {
  const issues: InputIssue[] = [];
  const entries = (raw as { endpoints?: unknown })?.endpoints;
  if (Array.isArray(entries))
    entries.forEach((entry, i) => {
      for (const field of Object.keys(entry ?? {}))
        if (KEY_FIELDS.test(field))
          issues.push({
            path: `endpoints.${i}.${field}`,
            message: 'keys are read from the environment only: remove it and name the variable in "keyEnv"',
          });
    });
  return issues;
}

/**
 * Reads and validates an endpoints file, resolving each key from `env`. Every problem is reported at once, naming
 * the file, the field (`endpoints.1.maxConcurrency`) and the reason; an unset key variable is one of them.
 *
 * @example loadEndpointsFile('endpoints.json', process.env) // [{ name: 'east', baseURL, keyEnv: 'KEY_EAST', apiKey, ... }]
 */
export function loadEndpointsFile(path: string, env: NodeJS.ProcessEnv): PoolEndpoint[] {
  const source = resolve(path);
  if (!existsSync(source)) throw new InvalidInputError(source, [{ path: '', message: 'no such file (--endpoints)' }]);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(source, 'utf8'));
  } catch (error) {
    throw new InvalidInputError(source, [{ path: '', message: `not valid JSON (${(error as Error).message})` }]);
  }
  const keyIssues = fileIssues(raw);
  if (keyIssues.length > 0) throw new InvalidInputError(source, keyIssues);
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success)
    throw new InvalidInputError(
      source,
      parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    );
  const issues: InputIssue[] = [];
  const endpoints = parsed.data.endpoints.map((entry, i) => {
    const apiKey = env[entry.keyEnv];
    if (!apiKey)
      issues.push({ path: `endpoints.${i}.keyEnv`, message: `environment variable ${entry.keyEnv} is not set` });
    return {
      name: entry.name ?? `endpoint-${i + 1}`,
      baseURL: entry.baseURL.replace(/\/+$/, ''),
      keyEnv: entry.keyEnv,
      apiKey: apiKey ?? '',
      maxConcurrency: entry.maxConcurrency,
      weight: entry.weight,
      models: entry.models ?? null,
    };
  });
  endpoints.forEach((endpoint, i) => {
    if (endpoints.findIndex((other) => other.name === endpoint.name) !== i)
      issues.push({ path: `endpoints.${i}.name`, message: `"${endpoint.name}" names another endpoint too` });
  });
  if (issues.length > 0) throw new InvalidInputError(source, issues);
  return endpoints;
}

/**
 * The pool's endpoint identity, the spec's `baseURL` when `OPENAI_BASE_URL` is not set (hashed, and the response
 * cache's endpoint component): the alphabetically first base URL, so machines whose files list the same endpoints in
 * another order, or with their own keys, still agree.
 */
export function poolIdentity(endpoints: readonly Pick<PoolEndpoint, 'baseURL'>[]): string {
  return [...endpoints.map((e) => e.baseURL)].sort()[0]!;
}
