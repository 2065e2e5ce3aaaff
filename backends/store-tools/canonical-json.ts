// Canonical JSON (keys sorted at every level, no spaces): one encoding for raw bodies and label comparisons.

/** A JSON value as the raw readers return it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Serialises a JSON-compatible value with object keys sorted, so equal values give equal strings.
 * `undefined` object members are dropped, as JSON.stringify does.
 *
 * @example canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }) // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) sorted[key] = sortKeys(member);
  }
  return sorted;
}

/** Parses a canonical body back into a JSON object; throws naming the body when it is not one. */
export function parseBody(body: string): Record<string, JsonValue> {
  const value = JSON.parse(body) as unknown;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`raw body is not a JSON object: ${body.slice(0, 80)}`);
  return value as Record<string, JsonValue>;
}
