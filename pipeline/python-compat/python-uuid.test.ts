// uuid.uuid5 against CPython (data/fixtures/python-compat/uuid5.json).
import { describe, expect, it } from 'vitest';
import { NAMESPACE_OID, pythonUuid5 } from './python-uuid.js';
import { readFixture } from './test-support/cpython-fixture.js';

const fixture = readFixture<{
  namespaces: Record<string, string>;
  cases: { namespace: string; name: string; uuid: string }[];
}>('uuid5');

describe(`uuid5 as ${fixture.source} computes it (${fixture.generator})`, () => {
  it(`${fixture.cases.length} names under NAMESPACE_OID, DNS and URL, non-ASCII and astral ones included`, () => {
    expect(NAMESPACE_OID).toBe(fixture.namespaces.oid);
    const wrong = fixture.cases.filter(
      ({ namespace, name, uuid }) => pythonUuid5(name, fixture.namespaces[namespace]) !== uuid,
    );
    expect(wrong).toEqual([]);
  });
});
