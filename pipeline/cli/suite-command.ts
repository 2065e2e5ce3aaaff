// `pnpm eval --suite <id> [--<argument> <value> …]`: any suite of the registry (pipeline/suites/index.ts) through the
// one runner (pipeline/suites/run-suite.ts): run directory, chained records, resume, --shard, --limit, then
// `pnpm verify-run` and `pnpm report` on it. A suite's flags are its zod arguments, spelled in kebab case.
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { EvalError, InvalidInputError } from '#core/errors.js';
import { sarifBase, sarifSource, writeSuiteSarif } from '../run/sarif-file.js';
import { parseShard } from '../run/shard.js';
import { nearestFlag } from './cli-flags.js';
import { suiteOf } from '../suites/index.js';
import { type AnySuite, planSuite, runSuite, suiteReport, suiteRunDirName } from '../suites/run-suite.js';

/** Where the command writes and what it reads. */
export interface SuiteCommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Repository root (default: the working directory); default run directories go under `<root>/runs/<suite>/`. */
  root?: string;
  /** Stops the run between units (SIGINT/SIGTERM in the CLI). */
  signal?: AbortSignal;
}

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The zod kind of a schema, looking through optional, default and nullable wrappers. */
function kindOf(schema: z.ZodType): { type: string; element?: z.ZodType } {
  let def = (schema as unknown as { def: { type: string; innerType?: z.ZodType; element?: z.ZodType } }).def;
  while (
    (def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'prefault') &&
    def.innerType
  )
    def = (def.innerType as unknown as { def: typeof def }).def;
  return { type: def.type, ...(def.element ? { element: def.element } : {}) };
}

/** One flag's text as the value its argument's schema takes: lists split on commas, numbers and booleans read. */
function valueOf(text: string, schema: z.ZodType): unknown {
  const { type, element } = kindOf(schema);
  if (type === 'array') return text === '' ? [] : text.split(',').map((item) => valueOf(item.trim(), element!));
  if (type === 'number') return text.trim() === '' ? Number.NaN : Number(text);
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}

/** The suite's argument flags: one `--kebab-case` string option per key of its zod object. */
function argumentFlags(suite: AnySuite): Map<string, { key: string; schema: z.ZodType }> {
  const shape = (suite.args as unknown as { def: { type: string; shape?: Record<string, z.ZodType> } }).def;
  if (shape.type !== 'object' || !shape.shape) return new Map();
  return new Map(Object.entries(shape.shape).map(([key, schema]) => [kebab(key), { key, schema }]));
}

const COMMON = {
  suite: { type: 'string' },
  /** Arguments as one JSON object (for structured ones); a flag of the same argument overrides its key. */
  args: { type: 'string' },
  out: { type: 'string', short: 'o' },
  shard: { type: 'string' },
  limit: { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  /** SARIF 2.1.0 of the run's failing cells (a suite with a `ci` member, SuiteV1). */
  sarif: { type: 'string' },
} as const;

/**
 * Runs `pnpm eval --suite <id> …`; returns the exit code: the suite's own (`exitCode` of its summary), or 1 for a
 * usage error (one line naming the flag and the reason; nothing is written).
 */
export async function suiteCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  io: SuiteCommandIo,
): Promise<number> {
  try {
    const id = parseArgs({ args: [...argv], options: COMMON, strict: false }).values.suite;
    if (typeof id !== 'string' || id === '') throw new EvalError('usage', '--suite: give a suite id');
    const root = io.root ?? process.cwd();
    const suite = suiteOf(id, { env, root });
    const report = suiteReport(suite);
    const flags = argumentFlags(suite);
    const options = Object.fromEntries([...flags.keys()].map((flag) => [flag, { type: 'string' as const }]));
    let values: Record<string, string | boolean | undefined>;
    try {
      values = parseArgs({ args: [...argv], options: { ...COMMON, ...options }, strict: true }).values as typeof values;
    } catch (error) {
      const names = [...Object.keys(COMMON), ...flags.keys()];
      const unknown = /^Unknown option '-*([^']+)'/.exec((error as Error).message)?.[1];
      // `pnpm integrity --target x` is `pnpm eval --suite integrity --targets x`: name the flag meant.
      const nearest = unknown === undefined ? null : nearestFlag(unknown, names);
      const known = names.map((flag) => `--${flag}`).join(', ');
      throw new EvalError(
        'usage',
        `${(error as Error).message} (suite ${id} takes ${known})${nearest ? `; did you mean --${nearest}?` : ''}`,
      );
    }
    let base: Record<string, unknown> = {};
    if (typeof values.args === 'string') {
      try {
        base = JSON.parse(values.args) as Record<string, unknown>;
      } catch (error) {
        throw new InvalidInputError('command line', [
          { path: '--args', message: `not JSON: ${(error as Error).message}` },
        ]);
      }
      if (typeof base !== 'object' || base === null || Array.isArray(base))
        throw new InvalidInputError('command line', [
          { path: '--args', message: 'a JSON object of the suite arguments' },
        ]);
    }
    const flagged = Object.fromEntries(
      [...flags].flatMap(([flag, { key, schema }]) =>
        typeof values[flag] === 'string' ? [[key, valueOf(values[flag] as string, schema)]] : [],
      ),
    );
    const parsed = suite.args.safeParse({ ...base, ...flagged });
    if (!parsed.success)
      throw new InvalidInputError(
        'command line',
        parsed.error.issues.map((issue) => ({
          path:
            issue.path.length > 0
              ? `--${kebab(String(issue.path[0]))}${issue.path
                  .slice(1)
                  .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
                  .join('')}`
              : `--suite ${id}`,
          message: issue.message,
        })),
      );
    if (typeof values.sarif === 'string' && !suite.ci)
      throw new InvalidInputError('command line', [
        { path: '--sarif', message: `suite ${id} declares no SARIF findings (no ci member)` },
      ]);
    const shard = typeof values.shard === 'string' ? parseShard(values.shard, env) : null;
    const limit = typeof values.limit === 'string' ? Number(values.limit) : null;
    if (limit !== null && !(Number.isInteger(limit) && limit > 0))
      throw new InvalidInputError('command line', [{ path: '--limit', message: 'a positive whole number' }]);
    const runDir = resolve(
      root,
      typeof values.out === 'string' ? values.out : join('runs', id, suiteRunDirName(suite, parsed.data, shard, limit)),
    );
    const run = {
      args: parsed.data,
      runDir,
      shard,
      limit,
      command: ['pnpm eval', ...argv].join(' '),
      log: io.err,
      ...(io.signal ? { signal: io.signal } : {}),
    };
    if (values['dry-run']) {
      const { units } = await planSuite(suite, run);
      io.out(`run directory: ${runDir}\n${units.length} unit(s):\n${units.map((unit) => `  ${unit.id}`).join('\n')}`);
      return 0;
    }
    const result = await runSuite(suite, run);
    if (typeof values.sarif === 'string' && suite.ci)
      writeSuiteSarif(
        resolve(root, values.sarif),
        id,
        suite.ci.findings(result.summary),
        sarifSource(join(result.runDir, 'summary.json'), sarifBase(env, root)),
      );
    io.out(values.json ? JSON.stringify(result.summary, null, 2) : report.text(result.summary));
    io.out(`\nrun directory: ${result.runDir}\nreport: pnpm report ${result.runDir}`);
    return result.exitCode;
  } catch (error) {
    if (!(error instanceof EvalError)) throw error;
    io.err(`error: ${error.message}`);
    return 1;
  }
}
