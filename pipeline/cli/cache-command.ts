// `pnpm run cache stats|explain <key>|clear [--older-than <duration>]`: inspect and prune the response cache.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CACHE_KEY_PATTERN,
  CACHE_KEY_SCHEMA,
  cacheKeyOf,
  defaultCacheDir,
  type CacheKeyComponents,
} from '../models/response-cache.js';
import { listCacheFiles, removeCacheFiles, type CacheFile } from '../models/response-cache-files.js';
import { defineCommand, runAsEntryPoint, type CommandIo, type CommandLine } from '#core/command.js';

const USAGE = `usage: pnpm run cache stats [--cache-dir <dir>]
       pnpm run cache explain <key> [--cache-dir <dir>]
       pnpm run cache clear [--older-than <duration>] [--cache-dir <dir>]
  stats     entries, bytes, entries by key schema and by model, oldest and newest
  explain   every component of one key: endpoint, model, sample identity, trial, key schema, the request
            body (pretty-printed), when it was stored, and the stored reply. Keys are in each record's
            reply.cacheKey.
  clear     removes every entry, or with --older-than <n><s|m|h|d|w> (e.g. 7d, 12h) only entries stored
            longer ago than that; prints each entry it removes
  --cache-dir <dir>   the response cache (default: $STALEBENCH_CACHE_DIR, else .stalebench-cache, as pnpm eval)
exit codes: 0 ok · 1 usage error, a bad duration, or a key that is malformed or not in the cache`;

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `7d` → milliseconds, or null when the text is not a whole number and one of the units s, m, h, d, w. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+)([smhdw])$/.exec(text.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2]!]! : null;
}

const storedTime = (file: CacheFile): number | null => {
  const time = file.entry ? Date.parse(file.entry.storedAt) : Number.NaN;
  return Number.isNaN(time) ? null : time;
};
const summaryOf = (file: CacheFile): string =>
  file.entry
    ? `${file.key}  ${file.entry.storedAt}  ${file.entry.components.model ?? '?'}  ${file.entry.components.sample ?? '(no sample: schema 1)'}`
    : `${file.key}  (${file.kind === 'temporary' ? 'unfinished write' : file.problem})`;
const count = (values: readonly string[]): string =>
  [...values.reduce((map, value) => map.set(value, (map.get(value) ?? 0) + 1), new Map<string, number>())]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([value, n]) => `${value}: ${n}`)
    .join(' · ') || '–';

function stats(dir: string, out: (line: string) => void): number {
  const files = listCacheFiles(dir);
  const entries = files.filter((file) => file.entry);
  const dated = entries
    .map((file) => ({ file, time: storedTime(file) }))
    .filter((item) => item.time !== null)
    .sort((a, b) => a.time! - b.time!);
  out(`cache: ${dir}`);
  out(`entries: ${entries.length} (${files.reduce((sum, file) => sum + file.bytes, 0)} bytes on disk, all files)`);
  out(
    `by key schema: ${count(entries.map((file) => `${file.entry!.components.schema}${file.entry!.components.schema === CACHE_KEY_SCHEMA ? ' (current)' : ' (older: never read)'}`))}`,
  );
  out(`by model: ${count(entries.map((file) => String(file.entry!.components.model)))}`);
  out(`oldest: ${dated[0] ? `${dated[0].file.entry!.storedAt} (${dated[0].file.key})` : '–'}`);
  out(`newest: ${dated.at(-1) ? `${dated.at(-1)!.file.entry!.storedAt} (${dated.at(-1)!.file.key})` : '–'}`);
  const broken = files.filter((file) => !file.entry);
  if (broken.length > 0) out(`not readable as entries: ${broken.length} (pnpm run cache clear removes them)`);
  return 0;
}

function explain(dir: string, key: string, out: (line: string) => void, err: (line: string) => void): number {
  if (!CACHE_KEY_PATTERN.test(key)) {
    err(`error: "${key}" is not a cache key: expected 64 lowercase hex characters (a record's reply.cacheKey)`);
    return 1;
  }
  const file = listCacheFiles(dir).find((candidate) => candidate.kind === 'entry' && candidate.key === key);
  if (!file) {
    err(`error: no entry ${key} in ${dir}`);
    return 1;
  }
  if (!file.entry) {
    err(`error: ${file.path}: ${file.problem}`);
    return 1;
  }
  const components = file.entry.components as Partial<CacheKeyComponents>;
  const current = components.schema === CACHE_KEY_SCHEMA;
  let body: string = String(components.body);
  try {
    body = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // shown as stored
  }
  out(`key:       ${key}`);
  out(`file:      ${file.path}`);
  out(`schema:    ${components.schema}${current ? ' (current)' : ` (older than ${CACHE_KEY_SCHEMA}: never read)`}`);
  out(`endpoint:  ${components.baseURL}`);
  out(`model:     ${components.model}`);
  out(`sample:    ${components.sample ?? '(none: schema 1 keys had no sample identity)'}`);
  out(`trial:     ${components.trial}`);
  out(`storedAt:  ${file.entry.storedAt}`);
  if (current)
    out(
      `verified:  ${cacheKeyOf(components as CacheKeyComponents) === key ? 'the components hash to this key' : 'NO: the components do not hash to this key (edited or corrupt; never served)'}`,
    );
  out('body:');
  out(body);
  out('value:');
  out(JSON.stringify(file.entry.value, null, 2));
  return 0;
}

function clear(
  dir: string,
  olderThan: string | undefined,
  now: Date,
  out: (line: string) => void,
  err: (line: string) => void,
): number {
  const age = olderThan === undefined ? 0 : parseDuration(olderThan);
  if (age === null) {
    err(`error: --older-than "${olderThan}": expected a whole number and a unit s, m, h, d or w (e.g. 7d, 12h)`);
    return 1;
  }
  const files = listCacheFiles(dir);
  const cutoff = now.getTime() - age;
  const doomed =
    olderThan === undefined
      ? files
      : files.filter(
          (file) => (file.kind === 'temporary' ? file.modifiedAt.getTime() : (storedTime(file) ?? Infinity)) < cutoff,
        );
  for (const file of doomed) out(`removed ${summaryOf(file)}`);
  removeCacheFiles(dir, doomed);
  const bytes = doomed.reduce((sum, file) => sum + file.bytes, 0);
  out(
    `removed ${doomed.length} file(s), ${bytes} bytes, from ${dir}${olderThan === undefined ? '' : ` (stored before ${new Date(cutoff).toISOString()})`}`,
  );
  const undated = files.filter((file) => file.kind === 'entry' && storedTime(file) === null);
  if (olderThan !== undefined && undated.length > 0)
    out(
      `kept ${undated.length} file(s) with no readable storedAt; pnpm run cache clear without --older-than removes them`,
    );
  return 0;
}

const OPTIONS = { 'cache-dir': { type: 'string' }, 'older-than': { type: 'string' } } as const;

/** Runs the command; returns the exit code. `now` (after the writers) is injectable for tests. */
export const main = defineCommand({
  usage: USAGE,
  options: OPTIONS,
  allowPositionals: true,
  oneLineErrors: 'all',
  run: cacheCommand,
});

function cacheCommand(
  { values, positionals }: CommandLine<typeof OPTIONS>,
  { out, err, usageError }: CommandIo,
  now: Date = new Date(),
): number {
  const [command, ...rest] = positionals;
  const dir = resolve(values['cache-dir'] ?? defaultCacheDir(process.env));
  const problem =
    command === undefined
      ? 'no command'
      : !['stats', 'explain', 'clear'].includes(command)
        ? `unknown command "${command}"`
        : rest.length !== (command === 'explain' ? 1 : 0)
          ? command === 'explain'
            ? 'explain takes exactly one key'
            : `${command} takes no arguments (got ${rest.join(' ')})`
          : values['older-than'] !== undefined && command !== 'clear'
            ? '--older-than applies to clear only'
            : null;
  if (problem !== null) return usageError(problem);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new Error(`--cache-dir ${dir}: not a directory`);
  if (command === 'stats') return stats(dir, out);
  if (command === 'explain') return explain(dir, rest[0]!.toLowerCase(), out, err);
  return clear(dir, values['older-than'], now, out, err);
}

runAsEntryPoint(import.meta.url, main);
