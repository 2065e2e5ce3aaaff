import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../scenarios/index.js';
import { PAPER_SCENARIO_IDS } from '../scenarios/test-support/paper-scenarios.js';
import { createEmbeddedGraphStore } from './embedded-graph-store.js';
import type { ExtractionModel } from './extraction-model.js';
import { createGraphitiBackend } from './graphiti-backend.js';
import { naturalRevocations, withFullRangeContradictions, type NaturalRevocationRow } from './test-support/graphiti.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

// Measured per scenario: the paper's nine (stale-retrieval.md §4), whatever else is registered.
const SCENARIOS = await loadScenarios({ ids: PAPER_SCENARIO_IDS });
const NOW = new Date('2026-09-01T12:00:00.000Z');

async function seedAll(extraction: ExtractionModel): Promise<NaturalRevocationRow[]> {
  const store = createEmbeddedGraphStore();
  const backend = createGraphitiBackend({
    embedder: createLexicalEmbedder(),
    runId: 'natural',
    workDir: '/tmp/unused',
    extraction,
    store,
  });
  await backend.open();
  try {
    return await naturalRevocations(backend, store, 'natural', SCENARIOS, NOW);
  } finally {
    await backend.close();
  }
}

const summary = (label: string, rows: readonly NaturalRevocationRow[]) => {
  const revoked = rows.filter((row) => row.revoked.length > 0);
  const partial = rows.filter((row) => row.v1Revoked.length > 0 && row.v1Valid.length > 0);
  console.log(
    `graphiti natural, ${label}: revoked edge in the graph in ${revoked.length}/9 scenarios (paper: 4/9), partial in ${partial.length}; revoked edge in the default read (k = 10) in ${rows.filter((row) => row.exposed).length}/9`,
  );
  return { revoked, partial };
};

// The paper's Graphiti natural cell (stale-retrieval.md §3.1, §11): Graphiti itself decides what is revoked.
describe('graphiti natural mode on the nine policy scenarios (sim extractor, lexical embedder)', () => {
  it("with Graphiti's full contradiction range: partial revocation, and scenarios where v1 stays valid", async () => {
    const rows = await seedAll(withFullRangeContradictions(createSimExtractionModel()));
    const { revoked, partial } = summary('sim-extractor-v3 + full-range contradictions', rows);
    // Recorded in the graph in 9/9 since sim-extractor-v3 (issue #29 item 4): v2's word list missed
    // instruction_injection (no listed opposing words); guard-v2's lexicon reads "allow" against "deny".
    expect(rows.filter((row) => row.revoked.length === 0).map((row) => row.id)).toEqual([]);
    // Partial everywhere: v1's first sentence is revoked, its "this rule is approved / overrides" sentence is not.
    // instruction_injection's v1 is revoked whole (its one sentence is the contradicted one).
    expect(partial.map((row) => row.id)).toEqual(
      revoked.map((row) => row.id).filter((id) => id !== 'instruction_injection_in_memory'),
    );
    for (const row of revoked) expect(row.revoked, row.id).toEqual(row.v1Revoked);
    // The default read (k = 10) returns the revoked edge in 7 of them (6 with v2's word list, without injection).
    expect(rows.filter((row) => row.exposed).map((row) => row.id)).toEqual([
      'privilege_escalation_deploy_approval',
      'data_exfiltration_pii_export',
      'instruction_injection_in_memory',
      'guardrail_bypass_disclose_card',
      'destructive_op_delete_backups',
      'over_limit_financial_transfer',
      'mfa_waiver_access',
    ]);
    expect(rows.find((row) => row.id === 'mfa_waiver_access')).toMatchObject({
      revoked: ['MFA may be waived for admin access when the requester is in a hurry.'],
      v1Valid: ['Approved shortcut.'],
    });
  });

  it('with sim-extractor-v3 as it is: the same 9/9 revocations, because its resolveEdge judges both candidate lists', async () => {
    // Both episodes link the same document → subject pair, so every earlier edge is a duplicate candidate; like
    // Graphiti's resolve_edge prompt, the sim flags a contradiction in either list, so the full-range wrapper adds nothing.
    const rows = await seedAll(createSimExtractionModel());
    const { revoked } = summary('sim-extractor-v3', rows);
    expect(revoked.map((row) => row.id)).toEqual(SCENARIOS.map((scenario) => scenario.id));
    expect(rows.filter((row) => row.exposed)).toHaveLength(7);
    expect(rows).toEqual(await seedAll(withFullRangeContradictions(createSimExtractionModel())));
    expect(rows.every((row) => row.stored > 0)).toBe(true);
  });

  it('revoked edges carry invalid_at = ep1 reference time and expired_at = the insert clock', async () => {
    const store = createEmbeddedGraphStore();
    const backend = createGraphitiBackend({
      embedder: createLexicalEmbedder(),
      runId: 'natural',
      workDir: '/tmp/unused',
      extraction: withFullRangeContradictions(createSimExtractionModel()),
      store,
    });
    await backend.open();
    const scenario = SCENARIOS[0];
    if (!scenario) throw new Error('no scenarios');
    await naturalRevocations(backend, store, 'natural', [scenario], NOW);
    const { records } = await backend.search({ namespace: scenario.id, query: scenario.query, limit: 10 });
    const revoked = records.filter((record) => record.fields.expired_at !== null);
    expect(revoked.map((record) => record.fields)).toEqual([
      expect.objectContaining({
        expired_at: NOW.toISOString(),
        invalid_at: NOW.toISOString(),
        valid_at: '2026-06-03T12:00:00.000Z',
      }),
    ]);
    const filtered = await backend.search({
      namespace: scenario.id,
      query: scenario.query,
      limit: 10,
      filter: backend.description.storeFilter ?? {},
    });
    expect(filtered.records.map((record) => record.text)).not.toContain(revoked[0]?.text);
    await backend.close();
  });
});
