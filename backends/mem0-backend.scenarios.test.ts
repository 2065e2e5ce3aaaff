import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertsRevoked, exposureOf, labelRecords } from '../pipeline/suites/grid/exposure.js';
import { episodesFor } from '../pipeline/suites/grid/episodes.js';
import { loadScenarios } from '../scenarios/index.js';
import { compileFilterPredicate } from './filter-predicate.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { createMem0Backend, type Mem0Settings } from './mem0-backend.js';
import type { MemoryBackend, MemoryRecord } from './memory-backend.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

const POLICY_SCENARIO_FIXTURES = await loadScenarios();
const workDirs: string[] = [];
afterAll(() =>
  workDirs.forEach((dir) => {
    rmSync(dir, { recursive: true, force: true });
  }),
);

const mem0 = (variant: Mem0Settings['variant']): MemoryBackend => {
  const workDir = mkdtempSync(join(tmpdir(), 'stalebench-mem0-scenarios-'));
  workDirs.push(workDir);
  return createMem0Backend({
    embedder: createLexicalEmbedder(),
    extraction: createSimExtractionModel(),
    runId: 'scenarios',
    workDir,
    variant,
  });
};
// Its query ("log-retention / cleanup") shares no word with v2 ("Retain ... logs"): the hashed-lexical cosine stays
// below mem0's semantic threshold 0.1, and mem0 drops a candidate on that before adding BM25 (memory-systems.md §4.3).
const LEXICAL_MISS = 'compliance_log_deletion';
const texts = (records: readonly MemoryRecord[]) => records.map((record) => record.text);

// The paper's mem0 direct cells (stale-retrieval.md §3.2, §7.2): mem0 (default) hides the expired v1, so lexical
// exposure is 0/9; mem0 (exp.) shows it with its expiration_date in 9/9; the store filter (showExpired: false)
// removes it for both.
describe('mem0 direct mode on every policy scenario (lexical embedder, k = 10)', () => {
  const now = new Date();

  it.each(['default', 'expired-shown'] as const)('variant %s', async (variant) => {
    const backend = mem0(variant);
    await backend.open();
    const { exposure, storeFilter } = backend.description;
    if (exposure.rule !== 'lexical' || storeFilter === null)
      throw new Error('mem0 labels lexically and has a store filter');
    const rows = [];
    for (const scenario of POLICY_SCENARIO_FIXTURES) {
      const namespace = scenario.id;
      await backend.reset(namespace);
      const report = await backend.insert({
        namespace,
        now,
        writes: { mode: 'direct', revoked: [scenario.v1], current: [scenario.v2, ...scenario.distractors] },
      });
      const read = { namespace, query: scenario.query, limit: 10 };
      const standard = (await backend.search(read)).records;
      const filtered = (await backend.search({ ...read, filter: backend.description.storeFilter ?? undefined }))
        .records;
      const v1 = standard.find((record) => record.text === scenario.v1);
      rows.push({
        id: scenario.id,
        stored: report.stored,
        exposed: exposureOf(labelRecords(standard, exposure, scenario)).exposed,
        v1Expiry: v1?.fields.expiration_date ?? null,
        v1InFiltered: texts(filtered).includes(scenario.v1),
        v2InDefault: texts(standard).includes(scenario.v2),
        v2InFiltered: texts(filtered).includes(scenario.v2),
        predicateAgrees: standard.every(
          (record) =>
            compileFilterPredicate(storeFilter)(record.fields as Record<string, string | null>) ===
            filtered.some((kept) => kept.id === record.id),
        ),
      });
      await backend.reset(namespace);
    }
    await backend.close();
    expect(rows).toHaveLength(POLICY_SCENARIO_FIXTURES.length);
    expect(rows.map((row) => row.stored)).toEqual(POLICY_SCENARIO_FIXTURES.map((s) => 2 + s.distractors.length));
    const exposed = rows.filter((row) => row.exposed).map((row) => row.id);
    const withExpiry = rows
      .filter((row) => typeof row.v1Expiry === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(row.v1Expiry))
      .map((row) => row.id);
    if (variant === 'default') {
      expect(exposed).toEqual([]);
      expect(withExpiry).toEqual([]);
    } else {
      expect(exposed).toEqual(POLICY_SCENARIO_FIXTURES.map((s) => s.id));
      expect(withExpiry).toEqual(POLICY_SCENARIO_FIXTURES.map((s) => s.id));
    }
    expect(rows.filter((row) => row.v1InFiltered)).toEqual([]);
    expect(rows.every((row) => row.v2InFiltered === row.v2InDefault && row.predicateAgrees)).toBe(true);
    expect(rows.filter((row) => !row.v2InDefault).map((row) => row.id)).toEqual([LEXICAL_MISS]);
  });
});

// Natural mode (§3.2): mem0's additive extraction "always added the new policy without retiring the old one".
describe('mem0 natural mode on every policy scenario (simulated extraction, k = 10)', () => {
  it('keeps v1-like and v2-like facts live (nothing revoked) and returns both in the default read', async () => {
    const backend = mem0('default');
    await backend.open();
    const now = new Date();
    const rows = [];
    for (const scenario of POLICY_SCENARIO_FIXTURES) {
      const namespace = scenario.id;
      await backend.reset(namespace);
      const report = await backend.insert({
        namespace,
        now,
        writes: { mode: 'natural', episodes: episodesFor(scenario, now) },
      });
      const byQuery = (await backend.search({ namespace, query: scenario.query, limit: 10 })).records;
      // A query naming both policies shows what the store holds live, independent of the scenario query's wording.
      const byBoth = (await backend.search({ namespace, query: `${scenario.v1} ${scenario.v2}`, limit: 10 })).records;
      const kinds = (records: readonly MemoryRecord[]) => ({
        v1Like: records.some((record) => assertsRevoked(record.text, scenario.v1, scenario.v2)),
        v2Like: records.some((record) => assertsRevoked(record.text, scenario.v2, scenario.v1)),
      });
      rows.push({
        id: scenario.id,
        extractor: report.extractor,
        stored: report.stored,
        byQuery: kinds(byQuery),
        byBoth: kinds(byBoth),
        expired: [...byQuery, ...byBoth].filter((record) => record.fields.expiration_date !== null).length,
      });
      await backend.reset(namespace);
    }
    await backend.close();
    expect(rows.every((row) => row.extractor === 'sim-extractor-v3' && row.stored >= 3 && row.expired === 0)).toBe(
      true,
    );
    expect(rows.filter((row) => !(row.byBoth.v1Like && row.byBoth.v2Like))).toEqual([]);
    expect(rows.filter((row) => !(row.byQuery.v1Like && row.byQuery.v2Like)).map((row) => row.id)).toEqual([
      LEXICAL_MISS,
    ]);
  });
});
