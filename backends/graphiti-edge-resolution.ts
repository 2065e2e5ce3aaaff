// Graphiti's per-edge resolution (graphiti-core 0.31.2, edge_operations.py _dedupe_extracted_edge and
// _apply_temporal_invalidation): the LLM names duplicates and contradictions, date arithmetic alone decides who is retired.
import type { ExistingMemory, ExtractionModel } from './extraction-model.js';
import type { EntityEdge } from './graph-store.js';
import { normalizeExact } from './graphiti-ids.js';
import type { RecordedWarning } from './memory-backend.js';

/** One new edge with its candidates, as `resolve_extracted_edge` receives them. */
export interface EdgeResolutionInput {
  /** The extracted edge (not yet saved). */
  edge: EntityEdge;
  /** Duplicate candidates: hybrid-search hits among the edges between the same two nodes. */
  related: readonly EntityEdge[];
  /** Invalidation candidates: hybrid-search hits in the group, minus `related`. */
  existing: readonly EntityEdge[];
  /** The episode being ingested; appended to a duplicate's `episodes`. */
  episodeUuid: string;
  /** System time: the `expired_at` of anything retired now. */
  now: Date;
}

/** What resolution decided. Edges in `resolved` / `invalidated` are the input objects, mutated. */
export interface EdgeResolution {
  /** The new edge, or the existing edge it duplicates (with the episode appended). */
  resolved: EntityEdge;
  /** Candidates this edge invalidated (`invalid_at` and `expired_at` set). */
  invalidated: EntityEdge[];
  /** Candidates the model named as duplicates. */
  duplicates: EntityEdge[];
  /** Ids the model returned outside the allowed range (Graphiti logs and ignores them). */
  warnings: RecordedWarning[];
}

const ms = (date: Date | null): number | null => (date === null ? null : date.getTime());

/**
 * `resolve_extracted_edge`: no candidates → the edge as extracted, no model call (and, as in Graphiti, no
 * expiry even when it carries `invalid_at`); an exact fact between the same nodes → that edge, no model call;
 * otherwise one `resolveEdge` call with Graphiti's continuous ids (`0..n-1` duplicate candidates, then
 * invalidation candidates), followed by the date arithmetic of §2.2 item 4.
 *
 * @example
 * const { resolved, invalidated } = await resolveExtractedEdge(extraction, { edge, related, existing, episodeUuid, now });
 */
export async function resolveExtractedEdge(
  extraction: ExtractionModel,
  input: EdgeResolutionInput,
): Promise<EdgeResolution> {
  const { edge, related, existing, episodeUuid, now } = input;
  if (related.length === 0 && existing.length === 0)
    return { resolved: edge, invalidated: [], duplicates: [], warnings: [] };
  // append_episode_provenance: the extracted edge's episodes, then this episode, each once.
  const appendEpisode = (target: EntityEdge): EntityEdge => {
    for (const uuid of [...edge.episodes, episodeUuid]) if (!target.episodes.includes(uuid)) target.episodes.push(uuid);
    return target;
  };
  const fact = normalizeExact(edge.fact);
  const verbatim = related.find(
    (candidate) =>
      candidate.source_node_uuid === edge.source_node_uuid &&
      candidate.target_node_uuid === edge.target_node_uuid &&
      normalizeExact(candidate.fact) === fact,
  );
  if (verbatim) return { resolved: appendEpisode(verbatim), invalidated: [], duplicates: [], warnings: [] };

  const all = [...related, ...existing];
  const memories = (edges: readonly EntityEdge[], offset: number): ExistingMemory[] =>
    edges.map((candidate, index) => ({ id: String(offset + index), content: candidate.fact }));
  const answer = await extraction.resolveEdge({
    fact: edge.fact,
    duplicateCandidates: memories(related, 0),
    invalidationCandidates: memories(existing, related.length),
  });
  const warnings: RecordedWarning[] = [];
  const pick = (ids: readonly string[], size: number, kind: string): EntityEdge[] => {
    const valid = ids.filter((id) => /^\d+$/.test(id) && Number(id) < size);
    const invalid = ids.filter((id) => !valid.includes(id));
    if (invalid.length > 0) {
      warnings.push({
        type: 'other',
        feature: 'resolve_edge',
        message: `${extraction.id} returned ${kind} ids outside 0..${size - 1}: ${invalid.join(', ')} (ignored, as Graphiti does)`,
      });
    }
    return valid.flatMap((id) => all[Number(id)] ?? []);
  };
  const duplicates = pick(answer.duplicates, related.length, 'duplicate');
  const candidates = pick(answer.contradicted, all.length, 'contradicted');
  const resolved = duplicates[0] ? appendEpisode(duplicates[0]) : edge;

  if (resolved.invalid_at !== null && resolved.expired_at === null) resolved.expired_at = now;
  if (resolved.expired_at === null) {
    // Earliest valid_at first, nulls last; a contradicted fact that became true later retires the new edge.
    candidates.sort(
      (a, b) => (ms(a.valid_at) ?? Number.POSITIVE_INFINITY) - (ms(b.valid_at) ?? Number.POSITIVE_INFINITY),
    );
    const newer = candidates.find((candidate) => {
      const candidateValid = ms(candidate.valid_at);
      const resolvedValid = ms(resolved.valid_at);
      return candidateValid !== null && resolvedValid !== null && candidateValid > resolvedValid;
    });
    if (newer) {
      resolved.invalid_at = newer.valid_at;
      resolved.expired_at = now;
    }
  }
  return { resolved, invalidated: resolveEdgeContradictions(resolved, candidates, now), duplicates, warnings };
}

/**
 * `resolve_edge_contradictions`: each contradicted candidate whose validity window overlaps the resolved
 * edge's and whose `valid_at` is strictly earlier gets `invalid_at = resolved.valid_at` and, unless already
 * set, `expired_at = now`. A null `valid_at` on either side, or equal times, leave the candidate valid.
 */
export function resolveEdgeContradictions(
  resolved: EntityEdge,
  candidates: readonly EntityEdge[],
  now: Date,
): EntityEdge[] {
  const invalidated: EntityEdge[] = [];
  const resolvedValid = ms(resolved.valid_at);
  const resolvedInvalid = ms(resolved.invalid_at);
  for (const candidate of candidates) {
    const candidateValid = ms(candidate.valid_at);
    const candidateInvalid = ms(candidate.invalid_at);
    const endedBefore = candidateInvalid !== null && resolvedValid !== null && candidateInvalid <= resolvedValid;
    const startsAfter = candidateValid !== null && resolvedInvalid !== null && resolvedInvalid <= candidateValid;
    if (endedBefore || startsAfter) continue;
    if (candidateValid !== null && resolvedValid !== null && candidateValid < resolvedValid) {
      candidate.invalid_at = resolved.valid_at;
      candidate.expired_at = candidate.expired_at ?? now;
      invalidated.push(candidate);
    }
  }
  return invalidated;
}
