// The nine policy scenarios through the three inspeximus configurations, checked against the library itself (the
// same writes made straight through inspeximus in the venv), never against numbers copied from anywhere.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyStaleRetrievalGuard, memoryRecordToGuardInput } from '../guard/stale-retrieval-guard.js';
import { episodesFor } from '../pipeline/suites/grid/episodes.js';
import { exposureOf, labelRecords } from '../pipeline/suites/grid/exposure.js';
import { loadScenarios } from '../scenarios/index.js';
import { compileFilterPredicate } from './filter-predicate.js';
import { createInspeximusBackend, type InspeximusVariant } from './inspeximus-backend.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import type { MemoryRecord, MemoryWrites, SeedMode } from './memory-backend.js';
import { createSimExtractionModel } from './sim-extraction-model.js';
import { libraryReads, type ReferenceCase } from './test-support/inspeximus-reference.js';
import { inspeximusSkipReason } from './test-support/python-memory.js';

const skip = await inspeximusSkipReason();
const SCENARIOS = await loadScenarios();
const VARIANTS: Record<ReferenceCase['config'], InspeximusVariant> = {
  inspeximus: 'unkeyed',
  'inspeximus-keyed': 'keyed',
  'inspeximus-hist': 'keyed-history',
};
const workDir = mkdtempSync(join(tmpdir(), 'stalebench-inspeximus-scenarios-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const texts = (records: readonly MemoryRecord[]) => records.map((record) => record.text);
const sorted = (values: readonly string[]) => [...values].sort();

describe.skipIf(skip !== null)('inspeximus on the nine policy scenarios, against the library itself (k = 10)', () => {
  const now = new Date();

  it.each(['direct', 'natural'] as const)(
    '%s mode: every read of every configuration is what inspeximus returns',
    async (mode: SeedMode) => {
      const cases = Object.keys(VARIANTS).flatMap((config) =>
        SCENARIOS.map((scenario) => ({ config, mode, scenario }) as ReferenceCase),
      );
      const reference = libraryReads(cases, now);
      const column: Record<string, string> = {};
      for (const config of Object.keys(VARIANTS) as ReferenceCase['config'][]) {
        const backend = createInspeximusBackend({
          embedder: createLexicalEmbedder(),
          extraction: createSimExtractionModel(),
          runId: `scenarios-${mode}`,
          workDir,
          variant: VARIANTS[config],
        });
        expect(backend.id).toBe(config);
        await backend.open();
        let exposedCount = 0;
        for (const scenario of SCENARIOS) {
          const library = reference[cases.findIndex((c) => c.config === config && c.scenario.id === scenario.id)]!;
          const writes: MemoryWrites =
            mode === 'direct'
              ? { mode, revoked: [scenario.v1], current: [scenario.v2, ...scenario.distractors], relation: 'POLICY' }
              : { mode, episodes: episodesFor(scenario, now) };
          await backend.reset(scenario.id);
          const report = await backend.insert({ namespace: scenario.id, now, writes });
          const read = { namespace: scenario.id, query: scenario.query, limit: 10 };
          const standard = (await backend.search(read)).records;
          const filtered = (await backend.search({ ...read, filter: backend.description.storeFilter! })).records;
          const where = `${config} ${mode} ${scenario.id}`;
          // Same records as the library returned (ties in score may come back in either order: compared as sets).
          expect(sorted(texts(standard)), where).toEqual(sorted(library.default));
          expect(sorted(texts(filtered)), where).toEqual(sorted(library.filtered));
          expect(
            sorted(standard.filter((record) => record.fields.superseded === true).map((record) => record.text)),
            where,
          ).toEqual(sorted(library.superseded));
          // The exposure the run records is the lexical rule on exactly those reads.
          const exposure = exposureOf(
            labelRecords(standard, backend.description.exposure as { rule: 'lexical' }, scenario),
          );
          expect(exposure.exposed, where).toBe(library.exposed);
          expect(exposureOf(labelRecords(filtered, { rule: 'lexical' }, scenario)).exposed, where).toBe(
            library.filteredExposed,
          );
          if (exposure.exposed) exposedCount += 1;
          // Stage 1 of the guard withholds exactly the rows the library marked superseded; the filter predicate agrees.
          const stageOne = applyStaleRetrievalGuard(standard.map(memoryRecordToGuardInput))
            .withheld.filter((w) => w.stage === 'explicit')
            .map((w) => w.text);
          expect(sorted(stageOne), where).toEqual(sorted(library.superseded));
          for (const record of standard)
            expect(
              compileFilterPredicate(backend.description.storeFilter!)(record.fields as Record<string, string | null>),
              where,
            ).toBe(record.fields.superseded !== true);
          expect(report.extractor, where).toBe(
            mode === 'natural' && config !== 'inspeximus' ? 'inspeximus.regex_extractor' : 'none',
          );
          expect(
            report.warnings.map((warning) => warning.feature),
            where,
          ).toEqual(mode === 'natural' ? ['embedder', 'extraction model'] : ['embedder']);
          for (const record of standard)
            expect(
              record.fields.stale_derived,
              `${where}: a stale_derived record would need mapping for the guard`,
            ).toBe(false);
          await backend.reset(scenario.id);
        }
        await backend.close();
        column[config] = `${exposedCount}/${SCENARIOS.length}`;
      }
      console.log(`[inspeximus ${mode}] exposure (default read, lexical rule): ${JSON.stringify(column)}`);
      // What the configurations are for, stated as relations between reads (no counts): the key hides v1 from the
      // default read exactly where the history read shows it marked; the filter is the keyed default read.
      if (mode === 'direct') {
        for (const scenario of SCENARIOS) {
          const read = (config: ReferenceCase['config']) =>
            reference[cases.findIndex((c) => c.config === config && c.scenario.id === scenario.id)]!;
          expect(read('inspeximus-keyed').default, scenario.id).not.toContain(scenario.v1);
          expect(read('inspeximus-hist').superseded.includes(scenario.v1), scenario.id).toBe(
            read('inspeximus').default.includes(scenario.v1),
          );
          expect(sorted(read('inspeximus-hist').filtered), scenario.id).toEqual(
            sorted(read('inspeximus-keyed').default),
          );
        }
      }
    },
    120_000,
  );
});
