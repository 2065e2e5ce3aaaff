// Test-only helpers for the Graphiti / Zep CE ports: a recording extraction mock, a full-range sim wrapper, a seeding probe.
import { episodesFor } from '../../pipeline/suites/grid/episodes.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { ExtractedEdge, ExtractionModel } from '../extraction-model.js';
import type { EntityEdge } from '../graph-store.js';
import type { GraphStore } from '../graph-store.js';
import { groupId } from '../graphiti-ids.js';
import type { MemoryBackend } from '../memory-backend.js';
import { simContradicts, splitFacts } from '../sim-extraction-model.js';

type EdgesInput = Parameters<ExtractionModel['extractEdges']>[0];
type ResolveInput = Parameters<ExtractionModel['resolveEdge']>[0];
type ResolveOutput = Awaited<ReturnType<ExtractionModel['resolveEdge']>>;

/** Scripted answers per operation: one value for every call, an array (one per call) or a function. */
export interface MockExtractionAnswers {
  /** One edge list for every call, a list of edge lists (one per call), or a function of the input. */
  extractEdges?: ExtractedEdge[] | ExtractedEdge[][] | ((input: EdgesInput, call: number) => ExtractedEdge[]);
  /** One answer for every call, one per call, or a function of the input. */
  resolveEdge?: ResolveOutput | ResolveOutput[] | ((input: ResolveInput, call: number) => ResolveOutput);
}

/** A mock that records every call it receives. */
export type MockExtractionModel = ExtractionModel & {
  calls: { extractEdges: EdgesInput[]; resolveEdge: ResolveInput[] };
};

const isEdgeLists = (value: ExtractedEdge[] | ExtractedEdge[][]): value is ExtractedEdge[][] => Array.isArray(value[0]);

/**
 * Creates a mock extraction model. `extractEdges` answers default to no edges, `resolveEdge` to nothing
 * duplicated or contradicted; for `extractEdges` an array of arrays is one answer per call.
 *
 * @example
 * const model = createMockExtractionModel({ extractEdges: [[v1Edge], [v2Edge]], resolveEdge: { duplicates: [], contradicted: ['0'] } });
 */
export function createMockExtractionModel(answers: MockExtractionAnswers = {}): MockExtractionModel {
  const calls: MockExtractionModel['calls'] = { extractEdges: [], resolveEdge: [] };
  return {
    id: 'mock-extractor',
    simulated: true,
    calls,
    extractFacts: async () => [],
    extractEdges: async (input) => {
      const call = calls.extractEdges.push(input) - 1;
      const scripted = answers.extractEdges ?? [];
      if (typeof scripted === 'function') return scripted(input, call);
      return isEdgeLists(scripted) ? (scripted[call] ?? []) : scripted;
    },
    resolveEdge: async (input) => {
      const call = calls.resolveEdge.push(input) - 1;
      const scripted = answers.resolveEdge ?? { duplicates: [], contradicted: [] };
      if (typeof scripted === 'function') return scripted(input, call);
      return Array.isArray(scripted) ? (scripted[call] ?? { duplicates: [], contradicted: [] }) : scripted;
    },
    consolidate: async () => ({ updates: [], inserts: [] }),
  };
}

/**
 * The sim extractor with Graphiti's full contradiction range: `resolve_edge` may name contradicted facts from
 * EITHER list (prompts/dedupe_edges.py), while `sim-extractor-v2` judges only the invalidation candidates.
 * Duplicates are the sim's own answer.
 */
export function withFullRangeContradictions(sim: ExtractionModel): ExtractionModel {
  return {
    ...sim,
    id: `${sim.id}+full-range`,
    resolveEdge: async (input) => {
      const { duplicates } = await sim.resolveEdge(input);
      const candidates = [...input.duplicateCandidates, ...input.invalidationCandidates];
      return {
        duplicates,
        contradicted: candidates
          .filter((candidate) => simContradicts(candidate.content, input.fact))
          .map((candidate) => candidate.id),
      };
    },
  };
}

/** Per scenario, what natural seeding left in the graph: which of v1's sentences were revoked, which stayed valid. */
export interface NaturalRevocationRow {
  id: string;
  stored: number;
  /** Facts of every edge with `expired_at` or `invalid_at` set. */
  revoked: string[];
  /** Edge facts from v1's sentences that were revoked / stayed valid. */
  v1Revoked: string[];
  v1Valid: string[];
  /** Whether the default read (k = 10) returned an edge with `expired_at` set (Graphiti's status label). */
  exposed: boolean;
}

/**
 * Seeds every scenario in natural mode (episodes from `episodesFor`) and reads back the group's edges.
 *
 * @example
 * const rows = await naturalRevocations(backend, store, 'run', scenarios, now);
 */
export async function naturalRevocations(
  backend: MemoryBackend,
  store: GraphStore,
  runId: string,
  scenarios: readonly Scenario[],
  now: Date,
): Promise<NaturalRevocationRow[]> {
  const rows: NaturalRevocationRow[] = [];
  for (const scenario of scenarios) {
    await backend.reset(scenario.id);
    const { stored } = await backend.insert({
      namespace: scenario.id,
      now,
      writes: { mode: 'natural', episodes: episodesFor(scenario, now) },
    });
    const edges = await store.getEdgesByGroup(groupId(runId, scenario.id));
    const isRevoked = (edge: EntityEdge) => edge.expired_at !== null || edge.invalid_at !== null;
    const v1Facts = new Set(splitFacts(scenario.v1));
    const v1Edges = edges.filter((edge) => v1Facts.has(edge.fact));
    const { records } = await backend.search({ namespace: scenario.id, query: scenario.query, limit: 10 });
    const revokedUuids = new Set(edges.filter(isRevoked).map((edge) => edge.uuid));
    rows.push({
      id: scenario.id,
      stored,
      revoked: edges.filter(isRevoked).map((edge) => edge.fact),
      v1Revoked: v1Edges.filter(isRevoked).map((edge) => edge.fact),
      v1Valid: v1Edges.filter((edge) => !isRevoked(edge)).map((edge) => edge.fact),
      exposed: records.some((record) => revokedUuids.has(record.id)),
    });
  }
  return rows;
}
