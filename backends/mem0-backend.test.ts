import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { createMem0Backend, mem0Version, type Mem0Settings } from './mem0-backend.js';
import { revokedExpirationDate } from './mem0-records.js';
import { runBackendConformance } from './memory-backend.conformance.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

const V1 = 'Admin access MFA may be waived when the requester is in a hurry.';
const V2 = 'Admin access always requires MFA; waivers are never permitted.';
const QUERY = 'Was there an approved MFA waiver for admin access?';
const workDirs: string[] = [];
const freshDir = (): string => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'stalebench-mem0-')));
  workDirs.push(dir);
  return dir;
};
const mem0 = (overrides: Partial<Mem0Settings> = {}) =>
  createMem0Backend({
    embedder: createLexicalEmbedder(),
    extraction: createSimExtractionModel(),
    runId: 'conformance',
    workDir: freshDir(),
    variant: 'default',
    ...overrides,
  });
const seed = { mode: 'direct', revoked: [V1], current: [V2] } as const;

// What exists outside the work directories before any mem0 client runs in this file.
const mem0Home = join(homedir(), '.mem0');
const outsideState = () => ({
  home: existsSync(mem0Home)
    ? readdirSync(mem0Home).map((name) => `${name}@${statSync(join(mem0Home, name)).mtimeMs}`)
    : null,
  cwd: ['memory.db', 'vector_store.db'].filter((name) => existsSync(join(process.cwd(), name))),
});
const outsideBefore = outsideState();
afterAll(() =>
  workDirs.forEach((dir) => {
    rmSync(dir, { recursive: true, force: true });
  }),
);

for (const variant of ['default', 'expired-shown'] as const) {
  runBackendConformance({
    name: variant === 'default' ? 'mem0' : 'mem0-exp',
    create: () => mem0({ variant }),
    createSharedPair: () => {
      const workDir = freshDir();
      return [mem0({ variant, runId: 'run_a', workDir }), mem0({ variant, runId: 'run_b', workDir })];
    },
    skip:
      variant === 'default'
        ? [
            {
              reason:
                "mem0's default read hides the expired revoked fact (showExpired: false), which is what the paper measures",
              tests: ['default search returns revoked and current facts'],
            },
          ]
        : [],
  });
}

/** Files under `dir` this process holds open (Linux /proc), to see SQLite handles. */
const openFilesUnder = (dir: string): string[] =>
  readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return [];
    }
  });

describe('mem0 backend', () => {
  it('stores and reads through the real mem0ai Memory and its SQLite files', async () => {
    const workDir = freshDir();
    const backend = mem0({ runId: 'proof', workDir });
    await backend.open();
    const oss = await import('mem0ai/oss'); // after open(): telemetry is already off when the module loads
    const add = vi.spyOn(oss.Memory.prototype, 'add');
    const search = vi.spyOn(oss.Memory.prototype, 'search');
    try {
      const now = new Date();
      await backend.insert({ namespace: 'ns', now, writes: seed });
      const expirationDate = revokedExpirationDate(now);
      expect(add.mock.calls).toEqual([
        [V1, { userId: 'proof__ns', infer: false, expirationDate }],
        [V2, { userId: 'proof__ns', infer: false }],
      ]);
      search.mockClear();
      const { records } = await backend.search({ namespace: 'ns', query: QUERY, limit: 10 });
      expect(search.mock.calls).toEqual([[QUERY, { filters: { user_id: 'proof__ns' }, topK: 10, showExpired: false }]]);
      expect(records.map((record) => record.text)).toEqual([V2]);
      const [record] = records;
      expect(record?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(record?.fields).toMatchObject({
        hash: createHash('md5').update(V2).digest('hex'),
        expiration_date: null,
        updated_at: null,
        user_id: 'proof__ns',
      });
      expect(record?.fields.score).toBeGreaterThan(0);
      expect(Date.parse(String(record?.fields.created_at))).toBeGreaterThan(now.getTime() - 60_000);
    } finally {
      add.mockRestore();
      search.mockRestore();
    }
    // mem0's own tables, read back with the SQLite driver it uses.
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (
      path: string,
      options: { readonly: boolean },
    ) => { prepare(sql: string): { all(): { payload?: string; action?: string }[] }; close(): void };
    const vectors = new Database(join(workDir, 'mem0', 'vector_store.db'), { readonly: true });
    const payloads = vectors
      .prepare('SELECT payload FROM vectors')
      .all()
      .map((row) => JSON.parse(row.payload ?? '{}') as Record<string, unknown>);
    vectors.close();
    expect(payloads).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ data: V1, user_id: 'proof__ns', expiration_date: expect.any(String) }),
        expect.objectContaining({ data: V2 }),
      ]),
    );
    const history = new Database(join(workDir, 'mem0', 'history.db'), { readonly: true });
    expect(
      history
        .prepare('SELECT action FROM memory_history')
        .all()
        .map((row) => row.action),
    ).toEqual(['ADD', 'ADD']);
    history.close();
    expect(existsSync(join(workDir, 'mem0', 'home', 'config.json'))).toBe(true);
    const manifestVersion = (
      JSON.parse(readFileSync(join(process.cwd(), 'node_modules', 'mem0ai', 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    expect(mem0Version()).toBe(manifestVersion);
    expect(backend.description.summary).toContain(`mem0ai ${manifestVersion}`);
    await backend.close();
  });

  it('stamps every write later than the one before, even on a clock that moves in 25 ms steps', async () => {
    // mem0ai stamps createdAt with the wall clock: on a coarse (or fast) clock, writes inside one step would share an
    // instant, and the guard, which orders records by it, could not tell the replacement from the revoked fact.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, advanceTimeDelta: 25 });
    try {
      const backend = mem0();
      await backend.open();
      const facts = Array.from({ length: 6 }, (_, i) => `Rule ${i}: badge ${i * 11} opens door ${i * 7}.`);
      await backend.insert({
        namespace: 'ns',
        now: new Date(),
        writes: { mode: 'direct', revoked: facts.slice(0, 3), current: facts.slice(3) },
      });
      const stamped = new Map(
        (await backend.listRecords!('ns')).map(({ record }) => [
          record.text,
          Date.parse(String(record.fields.created_at)),
        ]),
      );
      const times = facts.map((fact) => stamped.get(fact)!);
      for (let i = 1; i < times.length; i += 1) expect(times[i]!, facts[i]).toBeGreaterThan(times[i - 1]!);
      await backend.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('stays offline with telemetry off, opens concurrently and keeps two work directories apart', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('network is off in tests'));
    const [plainDir, expDir] = [freshDir(), freshDir()];
    const plain = mem0({ runId: 'same', workDir: plainDir, variant: 'default' });
    const exp = mem0({ runId: 'same', workDir: expDir, variant: 'expired-shown' });
    try {
      await Promise.all([plain.open(), exp.open()]);
      expect(process.env.MEM0_TELEMETRY).toBe('false');
      expect([join(plainDir, 'mem0', 'home'), join(expDir, 'mem0', 'home')]).toContain(process.env.MEM0_DIR);
      for (const dir of [plainDir, expDir]) expect(existsSync(join(dir, 'mem0', 'home', 'config.json'))).toBe(true);
      await plain.insert({ namespace: 'ns', now: new Date(), writes: seed });
      const episodes = [
        {
          name: 'ns_ep0',
          text: `Standard ADMIN-MFA-05, issued in 2024, governs the Admin MFA Gateway. It states: ${V1}`,
          referenceTime: new Date(),
          sourceDescription: 'policy feed',
        },
      ];
      await exp.insert({ namespace: 'ns', now: new Date(), writes: { mode: 'natural', episodes } });
      const read = async (backend: typeof plain) =>
        (await backend.search({ namespace: 'ns', query: QUERY, limit: 10 })).records.map((record) => record.text);
      expect(await read(plain)).toEqual([V2]);
      expect(await read(exp)).toContain(V1);
      expect(await read(exp)).not.toContain(V2);
      await exp.reset('ns');
      expect(await read(plain)).toEqual([V2]);
      expect(fetchSpy).not.toHaveBeenCalled();
    } finally {
      fetchSpy.mockRestore();
      await Promise.all([plain.close(), exp.close()]);
    }
  });

  it('maps the store filter to showExpired: false and refuses filters mem0 cannot apply', async () => {
    const backend = mem0({ variant: 'default' });
    expect(backend.description).toMatchObject({
      exposure: { rule: 'lexical' },
      statusFields: ['expiration_date'],
      modes: { direct: { supported: true }, natural: { supported: true } },
    });
    await backend.open();
    await backend.insert({ namespace: 'ns', now: new Date(), writes: seed });
    const read = async (filter: Parameters<typeof backend.search>[0]['filter']) =>
      (await backend.search({ namespace: 'ns', query: QUERY, limit: 10, filter })).records
        .map((record) => record.text)
        .sort();
    expect(await read(backend.description.storeFilter ?? undefined)).toEqual([V2]);
    expect(await read({})).toEqual([V1, V2].sort()); // no constraint at all: showExpired: true
    await expect(read({ expired_at: [[{ operator: 'IS NULL' }]] })).rejects.toBeInstanceOf(UnsupportedFeatureError);
    const yesterday = new Date(Date.now() - 86_400_000);
    await expect(
      read({ expiration_date: [[{ operator: 'IS NULL' }], [{ operator: '>=', date: yesterday }]] }),
    ).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await backend.close();
  });

  it('lists every memory with its expiry as revocation, for measurement only', async () => {
    const backend = mem0({ variant: 'default' });
    await backend.open();
    await backend.insert({ namespace: 'ns', now: new Date(), writes: seed });
    const listed = await backend.listRecords!('ns');
    expect(listed.map(({ record, revoked }) => [record.text, revoked]).sort()).toEqual(
      [
        [V1, true],
        [V2, false],
      ].sort(),
    );
    await backend.close();
  });

  it('fails the insert when the default read would still show a revoked fact', async () => {
    const backend = mem0();
    await backend.open();
    const oss = await import('mem0ai/oss');
    const original = oss.Memory.prototype.search;
    const search = vi.spyOn(oss.Memory.prototype, 'search').mockImplementation(function (
      this: InstanceType<typeof oss.Memory>,
      query,
      config,
    ) {
      return original.call(this, query, { ...config, showExpired: true });
    });
    try {
      await expect(backend.insert({ namespace: 'ns', now: new Date(), writes: seed })).rejects.toMatchObject({
        code: 'mem0-expiry-not-applied',
      });
    } finally {
      search.mockRestore();
      await backend.close();
    }
  });

  it('resets with deleteAll, closes its SQLite handles and refuses use before open', async () => {
    const workDir = freshDir();
    const backend = mem0({ workDir });
    await expect(backend.search({ namespace: 'ns', query: QUERY, limit: 1 })).rejects.toBeInstanceOf(EvalError);
    await backend.open();
    await backend.insert({ namespace: 'ns', now: new Date(), writes: seed });
    await backend.insert({ namespace: 'other', now: new Date(), writes: seed });
    await backend.reset('ns');
    expect((await backend.search({ namespace: 'ns', query: QUERY, limit: 10 })).records).toEqual([]);
    if (existsSync('/proc/self/fd')) expect(openFilesUnder(workDir).length).toBeGreaterThan(0);
    await backend.close();
    if (existsSync('/proc/self/fd')) expect(openFilesUnder(workDir)).toEqual([]);
    await expect(backend.reset('ns')).rejects.toMatchObject({ code: 'backend-not-open' });
    const reopened = mem0({ workDir });
    await reopened.open();
    expect(
      (await reopened.search({ namespace: 'other', query: QUERY, limit: 10 })).records.map((record) => record.text),
    ).toEqual([V2]);
    await reopened.close();
  });

  // Runs last in this file: every client above ran with MEM0_DIR, the vector store and the history under workDir.
  it('wrote nothing to ~/.mem0 or the current directory', () => {
    expect(outsideState()).toEqual(outsideBefore);
  });
});
