// Deterministic ids and names of the Graphiti port: group ids, content-derived uuids, entity-name keys.
import { createHash } from 'node:crypto';

const PLAIN_PART = /^[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*$/;

/**
 * `<runId>__<namespace>` when both are plain (`[A-Za-z0-9]+` joined by single `_`); otherwise the part gets
 * `_` for every other character plus a hash of its raw value. A group id is thus valid for Graphiti and a
 * single Lucene token, so the index's `group_id` field never matches a query word (as with the paper's
 * single group `mwe_rebirth`), and distinct runs or namespaces do not collide in practice.
 */
export function groupId(runId: string, namespace: string): string {
  const part = (value: string): string => {
    if (PLAIN_PART.test(value)) return value;
    return `${value.replace(/[^A-Za-z0-9]/g, '_')}_${createHash('sha256').update(value).digest('hex').slice(0, 8)}`;
  };
  return `${part(runId)}__${part(namespace)}`;
}

/** An RFC 9562 version-8 uuid from the sha256 of the parts: the same writes give the same ids in every run. */
export function stableUuid(...parts: string[]): string {
  return uuidFromHex(createHash('sha256').update(parts.join('\u0000')).digest('hex'));
}

/**
 * A `stableUuid` whose first 32 bits are `sequence` (a group's write counter), so uuids sort in write order, as
 * UUIDv7 sorts by time. Cosine ties are broken by uuid (graph-store.ts): stalebench's own edges then tie in write
 * order on every engine, whatever the run id that is hashed into the rest.
 */
export function sequencedUuid(sequence: number, ...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return uuidFromHex(`${(sequence >>> 0).toString(16).padStart(8, '0')}${hex.slice(8)}`);
}

function uuidFromHex(hex: string): string {
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Graphiti's `_normalize_string_exact` (dedup_helpers.py): lowercase, whitespace runs collapsed, trimmed. */
export function normalizeExact(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * The uuid of the `Entity` named `name` in a group. Entity resolution keeps Graphiti's deterministic step
 * (an extracted node whose exact-normalised name equals an existing node's is that node), so the uuid is a
 * function of the normalised name and "resolve or create" is a lookup by uuid.
 */
export function entityUuid(group: string, name: string): string {
  return stableUuid(group, 'Entity', normalizeExact(name));
}
