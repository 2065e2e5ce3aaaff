// guard_spec.py (the spec's guard in Python, for the bench) against the guard: the acceptance vectors and generated
// retrievals never seen before agree verdict for verdict, and a disagreement fails the bench.
import { describe, expect, it } from 'vitest';
import type { GuardInput } from '../../guard/guard-record.js';
import { screenOf } from '../defences/index.js';
import { runSpecGuard, type FreshRun } from './bench-guard-python.js';
import { asMemoryRecords } from './bench-guard.js';
import { seededRandom } from '#core/seeded-random.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const NOW = '2026-03-01T12:00:00.000Z';
const OLD = '2025-03-01T12:00:00.000Z';

/** §10.10's vectors, with fixed clocks. */
const VECTORS: GuardInput[][] = [
  [
    { fact: 'All TOR logins must be blocked.', expired_at: OLD },
    { fact: 'TOR logins with anomalies are monitored, not blocked.' },
  ],
  [
    { fact: 'Deployment approval requires only one reviewer.', created_at: OLD },
    { fact: 'Deployment approval requires two independent reviewers.', created_at: NOW },
  ],
  [
    'Support hours are 9am to 6pm.',
    'Refund requests over 30 days require a manager note.',
    'Customer PII must never leave the internal network.',
  ].map((fact) => ({ fact })),
  [
    { fact: 'A single operator may execute transfers up to $1,000,000.' },
    { fact: 'Single-operator transfers are capped at $10,000.' },
  ],
  [
    { fact: 'A single operator may execute transfers up to $1,000,000.', created_at: OLD },
    { fact: 'Single-operator transfers are capped at $10,000.', created_at: NOW },
  ],
];

const WORDS =
  'Deployment approval reviewers one two single dual never may not no cannot must $10,000 $1,000,000 2024 backups delete retain keep blocked monitored allowed denied granted policies logins TOR MFA waiver required skip export internal access card disclose refuse'.split(
    ' ',
  );

function generated(random: () => number): GuardInput[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const base = Array.from({ length: 3 }, () =>
    Array.from({ length: 4 + Math.floor(random() * 6) }, () => pick(WORDS)).join(' '),
  );
  return Array.from({ length: 10 }, (_, i) => {
    const fact = `${pick(base)} ${pick(WORDS)} ${i}x${Math.floor(random() * 1e6)}`;
    const shape = Math.floor(random() * 5);
    const day = `2025-0${1 + Math.floor(random() * 9)}-1${Math.floor(random() * 10)}`;
    if (shape === 0) return fact;
    if (shape === 1) return { fact, created_at: `${day}T00:00:00Z` };
    if (shape === 2) return { fact, valid_at: `${day}T08:00:00+00:00`, expired_at: random() < 0.2 ? day : null };
    if (shape === 3)
      return { fact, updated_at: `${day}T10:11:12`, expiration_date: random() < 0.5 ? '2099-01-01' : day };
    return { fact, timestamp: day };
  });
}

// The guard as the bench runs it: the registered screen (pipeline/defences), on the records as memory records.
const guard = screenOf('guard');
const verdictsOf = (groups: GuardInput[][][]) =>
  groups.map((group) => group.map((records) => guard({ records: asMemoryRecords(records), now: new Date(NOW) })));

/** One group as `FreshRun` holds it: split in two passes' JSON texts (the second maybe empty), as the bench does. */
const asText = (group: readonly unknown[]): string[] => {
  const half = Math.ceil(group.length / 2);
  return [JSON.stringify(group.slice(0, half)), JSON.stringify(group.slice(half))];
};

describe('guard_spec.py, the spec guard in Python the bench times', () => {
  it('returns the guard verdict on the acceptance vectors and on 600 generated retrievals', () => {
    const random = seededRandom(3210);
    const groups = [
      VECTORS,
      Array.from({ length: 300 }, () => generated(random)),
      Array.from({ length: 300 }, () => generated(random)),
    ];
    const verdicts = verdictsOf(groups);
    const fresh: FreshRun = { groups: groups.map(asText), verdicts: verdicts.map(asText) };
    const withheld = verdicts.flat().reduce((sum, verdict) => sum + verdict.withheld.length, 0);
    expect(withheld).toBeGreaterThan(100); // both stages are exercised
    expect(runSpecGuard(ROOT, fresh, NOW, 1)).toMatchObject({
      retrievals: 605,
      version: expect.stringMatching(/^3\./),
    });
  });

  it('a verdict that differs fails the bench', () => {
    const verdicts = verdictsOf([VECTORS.slice(1, 2)]);
    verdicts[0]![0]!.kept = [0, 1];
    const fresh: FreshRun = { groups: [VECTORS.slice(1, 2)].map(asText), verdicts: verdicts.map(asText) };
    expect(() => runSpecGuard(ROOT, fresh, NOW, 1)).toThrow(/disagree on fresh retrieval 0/);
  });
});
