import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '#core/errors.js';
import { createInspeximusBackend, type InspeximusVariant } from './inspeximus-backend.js';
import { INSPEXIMUS_VERSION } from './inspeximus-version.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { runBackendConformance } from './memory-backend.conformance.js';
import { createSimExtractionModel } from './sim-extraction-model.js';
import { inspeximusSkipReason, ROOT, storeDrivers } from './test-support/python-memory.js';

const skip = await inspeximusSkipReason();
const workDirs: string[] = [];
afterAll(() => {
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-inspeximus-'));
  workDirs.push(dir);
  return dir;
};
const inspeximus = (variant: InspeximusVariant, runId = 'conformance', workDir = freshDir()) =>
  createInspeximusBackend({
    embedder: createLexicalEmbedder(),
    extraction: createSimExtractionModel(),
    runId,
    workDir,
    variant,
  });
const NOW = new Date('2026-09-01T12:00:00.000Z');
const V1 = 'Admin access MFA may be waived when the requester is in a hurry.';
const V2 = 'Admin access always requires MFA; waivers are never permitted.';
const QUERY = 'Was there an approved MFA waiver for admin access?';

const reasonAll = skip === null ? null : `the Python venv cannot run inspeximus: ${skip}`;
const ALL = [
  'open and close',
  'default search returns revoked and current facts',
  'store filter excludes the revoked fact',
  'reset empties a namespace',
  'namespaces are isolated',
  'run ids isolate backends sharing one engine',
  'search honours limit',
] as const;
for (const variant of ['unkeyed', 'keyed', 'keyed-history'] as const) {
  const own = {
    unkeyed: [
      {
        reason: 'v1 and v2 are ordinary memories: the library retired nothing, so its filter has nothing to hide',
        tests: ['store filter excludes the revoked fact' as const],
      },
    ],
    keyed: [
      {
        reason: "the library's default recall hides the superseded v1, which is the claim this configuration measures",
        tests: ['default search returns revoked and current facts' as const],
      },
    ],
    'keyed-history': [],
  }[variant];
  runBackendConformance({
    name: inspeximus(variant).id,
    create: () => inspeximus(variant),
    createSharedPair: () => {
      const workDir = freshDir();
      return [inspeximus(variant, 'run_a', workDir), inspeximus(variant, 'run_b', workDir)];
    },
    skip: reasonAll === null ? own : [{ reason: reasonAll, tests: ALL }],
  });
}

describe('inspeximus configurations', () => {
  it('pin the version requirements.txt installs, and describe themselves as data', () => {
    expect(readFileSync(join(ROOT, 'backends', 'python', 'requirements.txt'), 'utf8')).toMatch(
      new RegExp(`^inspeximus\\[crypto\\]==${INSPEXIMUS_VERSION.replaceAll('.', '\\.')}$`, 'm'),
    );
    expect(inspeximus('keyed').description).toMatchObject({
      exposure: { rule: 'lexical' },
      storeFilter: { invalidated_at: [[{ operator: 'IS NULL' }]] },
      statusFields: ['superseded', 'invalidated_at', 'key', 'stale_derived'],
      modes: { direct: { supported: true }, natural: { supported: true } },
    });
    expect(['unkeyed', 'keyed', 'keyed-history'].map((variant) => inspeximus(variant as InspeximusVariant).id)).toEqual(
      ['inspeximus', 'inspeximus-keyed', 'inspeximus-hist'],
    );
    expect(inspeximus('keyed-history').description.summary).toContain(`inspeximus ${INSPEXIMUS_VERSION}`);
  });

  it.skipIf(skip !== null)(
    'keyed: v1 is superseded by v2 under one key, hidden by default and shown, marked, by the history read',
    async () => {
      const workDir = freshDir();
      const keyed = inspeximus('keyed', 'shared', workDir);
      await keyed.open();
      await keyed.insert({
        namespace: 'mfa',
        now: NOW,
        writes: { mode: 'direct', revoked: [V1], current: [V2], relation: 'POLICY' },
      });
      expect((await keyed.search({ namespace: 'mfa', query: QUERY, limit: 10 })).records.map((r) => r.text)).toEqual([
        V2,
      ]);
      const listed = await keyed.listRecords!('mfa');
      expect(listed.map((stored) => [stored.record.text, stored.revoked, stored.record.fields.key])).toEqual([
        [V1, true, 'mfa::policy'],
        [V2, false, 'mfa::policy'],
      ]);
      await keyed.close();
      // The history read of the same store (same run id and directory: a second handle on the files keyed wrote).
      const history = inspeximus('keyed-history', 'shared', workDir);
      await history.open();
      const records = (await history.search({ namespace: 'mfa', query: QUERY, limit: 10 })).records;
      const v1 = records.find((record) => record.text === V1);
      expect(v1?.fields).toMatchObject({
        superseded: true,
        key: 'mfa::policy',
        stale_derived: false,
        invalidated_at: NOW.toISOString(),
      });
      expect(
        (
          await history.search({ namespace: 'mfa', query: QUERY, limit: 10, filter: history.description.storeFilter! })
        ).records.map((r) => r.text),
      ).toEqual([V2]);
      await history.close();
    },
  );

  it.skipIf(skip !== null)(
    'writer metadata is stored as meta and filtered with where; a filter it cannot apply is refused, not ignored',
    async () => {
      const backend = inspeximus('unkeyed');
      await backend.open();
      await backend.insert({
        namespace: 'm',
        now: NOW,
        writes: { mode: 'direct', revoked: [], current: [V1] },
        metadata: { verified: false },
      });
      await backend.insert({
        namespace: 'm',
        now: NOW,
        writes: { mode: 'direct', revoked: [], current: [V2] },
        metadata: { verified: true },
      });
      expect(
        (
          await backend.search({ namespace: 'm', query: QUERY, limit: 10, metadataFilter: { verified: true } })
        ).records.map((r) => r.text),
      ).toEqual([V2]);
      await expect(
        backend.search({
          namespace: 'm',
          query: QUERY,
          limit: 10,
          filter: { expired_at: [[{ operator: 'IS NULL' }]] },
        }),
      ).rejects.toBeInstanceOf(UnsupportedFeatureError);
      await backend.close();
    },
  );

  it.skipIf(skip !== null)('a server engine the run names is reported unused, never silently dropped', async () => {
    const backend = createInspeximusBackend({
      embedder: createLexicalEmbedder(),
      extraction: createSimExtractionModel(),
      runId: 'e',
      workDir: freshDir(),
      variant: 'keyed',
      engine: { graph: { id: 'neo4j', uri: 'bolt://x', user: 'u', password: 'p' }, vector: { id: 'embedded' } },
    });
    await backend.open();
    const report = await backend.insert({
      namespace: 'n',
      now: NOW,
      writes: { mode: 'direct', revoked: [], current: [V2] },
    });
    expect(report.warnings.map((warning) => warning.message)).toContain(
      'inspeximus keeps its own SQLite store per namespace; neo4j is not used',
    );
    await backend.close();
  });

  it.skipIf(skip !== null)(
    'records sharing no word with the query are not returned (lexical recall, no embedder)',
    async () => {
      const backend = inspeximus('unkeyed');
      await backend.open();
      await backend.insert({
        namespace: 'w',
        now: NOW,
        writes: { mode: 'direct', revoked: [], current: ['Lunch is served at noon.', V2] },
      });
      expect((await backend.search({ namespace: 'w', query: QUERY, limit: 10 })).records.map((r) => r.text)).toEqual([
        V2,
      ]);
      await backend.close();
    },
  );

  it.skipIf(skip !== null)(
    'a killed Python process makes the read an error, not an empty answer; a reset starts a new one',
    async () => {
      const backend = inspeximus('keyed-history');
      await backend.open();
      await backend.insert({ namespace: 'k', now: NOW, writes: { mode: 'direct', revoked: [V1], current: [V2] } });
      const [pid] = storeDrivers();
      expect(storeDrivers()).toHaveLength(1);
      process.kill(pid!, 'SIGKILL');
      // Whether the client has seen the exit yet or not, the read is the same error (never records).
      await expect(backend.search({ namespace: 'k', query: QUERY, limit: 10 })).rejects.toMatchObject({
        code: 'python-process-died',
        message: expect.stringMatching(/^inspeximus-hist: .*namespace "k"/),
      });
      await expect(backend.search({ namespace: 'k', query: QUERY, limit: 10 })).rejects.toThrow(
        'inspeximus-hist: the inspeximus process that held namespace "k" died',
      );
      await backend.reset('k');
      const report = await backend.insert({
        namespace: 'k',
        now: NOW,
        writes: { mode: 'direct', revoked: [V1], current: [V2] },
      });
      expect(report.warnings).toEqual([
        {
          type: 'unsupported',
          feature: 'embedder',
          message:
            "inspeximus recalls lexically without an embedder (its default); the run's embedder lexical-hash-v1 is not used",
        },
        expect.objectContaining({
          feature: 'python process',
          message: expect.stringContaining('started after the previous one died'),
        }),
      ]);
      const { records, warnings } = await backend.search({ namespace: 'k', query: QUERY, limit: 10 });
      expect(records.map((r) => r.text).sort()).toEqual([V1, V2].sort());
      expect(warnings).toEqual([]);
      await backend.close();
      expect(storeDrivers()).toEqual([]);
    },
  );
});
