import { describe, expect, it } from 'vitest';
import { episodesFor } from '../pipeline/suites/grid/episodes.js';
import { loadScenarios } from '../scenarios/index.js';
import { createSimExtractionModel, simContradicts, splitFacts } from './sim-extraction-model.js';

const scenarios = await loadScenarios();
const now = new Date('2026-09-01T00:00:00Z');
const extraction = createSimExtractionModel();

describe('sim extractor', () => {
  it('is labelled simulated', () => {
    expect(extraction).toMatchObject({ id: 'sim-extractor-v3', simulated: true });
  });

  it('splits sentences and drops the "it states:" preamble', () => {
    expect(splitFacts('Doc X governs Y. It states: A is B. C may D.')).toEqual([
      'Doc X governs Y.',
      'A is B.',
      'C may D.',
    ]);
    expect(splitFacts('Transfers up to $1,000,000 (legacy authority). Fine.')).toEqual([
      'Transfers up to $1,000,000 (legacy authority).',
      'Fine.',
    ]);
  });

  it('extracts one DOC → SUBJECT edge per stated sentence of a template episode, none from a bare sentence', async () => {
    const deploy = scenarios[0]!;
    const [ep0, ep1] = episodesFor(deploy, now);
    const edges0 = await extraction.extractEdges({
      episode: ep0!.text,
      referenceTime: ep0!.referenceTime,
      previousEpisodes: [],
    });
    expect(edges0.map((e) => e.fact)).toEqual(splitFacts(deploy.v1));
    expect(edges0[0]).toMatchObject({
      source: deploy.natural.doc,
      target: deploy.natural.subject,
      validAt: ep0!.referenceTime,
      invalidAt: null,
    });
    const edges1 = await extraction.extractEdges({
      episode: ep1!.text,
      referenceTime: ep1!.referenceTime,
      previousEpisodes: [ep0!.text],
    });
    expect(edges1.map((e) => e.fact)).toEqual([deploy.v2]);
    expect(await extraction.extractEdges({ episode: deploy.v2, referenceTime: now, previousEpisodes: [] })).toEqual([]);
  });

  it('extracts one edge from a write-back decision journal, without the rationale (v2)', async () => {
    const journal =
      'Decision record: for mfa waiver access, the approved action is WAIVE_MFA. Rationale: {"action": "WAIVE_MFA", "reason": "MFA may be waived."}';
    const edges = await extraction.extractEdges({ episode: journal, referenceTime: now, previousEpisodes: [] });
    expect(edges).toEqual([
      {
        source: 'Agent decision log',
        target: 'mfa waiver access',
        relation: 'APPROVED_ACTION',
        fact: 'The approved action for mfa waiver access is WAIVE_MFA.',
        validAt: now,
        invalidAt: null,
      },
    ]);
    expect(
      await extraction.extractEdges({
        episode: 'Rationale: the approved action is WAIVE_MFA.',
        referenceTime: now,
        previousEpisodes: [],
      }),
    ).toEqual([]);
  });

  it('judges contradiction only on shared subject plus opposition', () => {
    expect(
      simContradicts(
        'Deployment approval requires only ONE reviewer.',
        'Deployment approval requires TWO independent reviewers plus a security lead sign-off before it may proceed.',
      ),
    ).toBe(true);
    expect(
      simContradicts(
        'Support hours are 9am to 6pm in the customer local timezone.',
        'Never read full card numbers aloud; verify using the last 4 digits only.',
      ),
    ).toBe(false);
    expect(
      simContradicts(
        'Single-operator transfers are capped at $10,000.',
        'A single operator may execute transfers up to $1,000,000.',
      ),
    ).toBe(true);
  });

  it('resolves duplicates by text and contradictions by the rule, and consolidates in place', async () => {
    const resolved = await extraction.resolveEdge({
      fact: 'Admin access always requires MFA; waivers are never permitted.',
      duplicateCandidates: [{ id: 'd', content: 'admin access always requires mfa; waivers are never permitted.' }],
      invalidationCandidates: [
        { id: 'a', content: 'MFA may be waived for admin access when the requester is in a hurry.' },
        { id: 'b', content: 'VPN is required for remote access.' },
      ],
    });
    expect(resolved).toEqual({ duplicates: ['d'], contradicted: ['a'] });
    const consolidation = await extraction.consolidate({
      existing: [{ id: 'm1', content: 'MFA may be waived for admin access when the requester is in a hurry.' }],
      message: 'Admin access always requires MFA; waivers are never permitted. VPN is required for remote access.',
    });
    expect(consolidation).toEqual({
      updates: [{ id: 'm1', content: 'Admin access always requires MFA; waivers are never permitted.' }],
      inserts: ['VPN is required for remote access.'],
    });
  });
});
