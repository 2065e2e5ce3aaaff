// The defence registry: every defence file registered once, compositions that resolve, and no defence applied by name
// outside it (issue #13 acceptance: grepping pipeline/ and analysis/ for the guard's function finds only its entry).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createStaleRetrievalGuard } from '../../guard/stale-retrieval-guard.js';
import type { MemoryRecord } from '../../backends/memory-backend.js';
import { ARMS, RUNNABLE_ARM_IDS } from '../run/arms.js';
import { UnknownComponentError } from '#core/errors.js';
import { flattenDefences } from './compose.js';
import type { DefenceV1 } from './defence-v1.js';
import { ARM_IDS, DEFENCE_IDS, DEFENCES, defenceOf, defenceStages, isArmId, screenOf } from './index.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const FOLDER = import.meta.dirname;

const isDefence = (value: unknown): value is DefenceV1 =>
  typeof value === 'object' && value !== null && (value as DefenceV1).specificationVersion === 'v1';

/** Non-test TypeScript files under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'test-support' || name === 'node_modules' ? [] : sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the defence registry', () => {
  it('registers every defence file in pipeline/defences exactly once, and nothing else', async () => {
    const exported: { file: string; defence: DefenceV1 }[] = [];
    for (const path of sources(FOLDER)) {
      const module = (await import(path)) as Record<string, unknown>;
      for (const value of Object.values(module))
        if (isDefence(value)) exported.push({ file: relative(FOLDER, path), defence: value });
    }
    const registered = new Set<DefenceV1>(DEFENCES);
    for (const { file, defence } of exported)
      expect(
        registered.has(defence),
        `${file} exports ${defence.id} but pipeline/defences/index.ts does not register it`,
      ).toBe(true);
    expect(exported.map(({ defence }) => defence)).toHaveLength(DEFENCES.length);
    expect(new Set(exported.map(({ file }) => file)).size, 'one defence per file').toBe(exported.length);
  });

  it('has unique kebab-case ids, the v1 spec, and compositions that resolve without cycles', () => {
    expect(new Set(DEFENCE_IDS).size).toBe(DEFENCE_IDS.length);
    for (const defence of DEFENCES) {
      expect(defence.id).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
      expect(defence.specificationVersion).toBe('v1');
      for (const used of defence.uses) expect(DEFENCE_IDS, `${defence.id} uses ${used}`).toContain(used);
      expect(() => flattenDefences([defence.id])).not.toThrow();
      // A reused reply must be another arm's (the grid looks it up by unit id and runs reusing arms after it).
      const { reuseReplyOf } = defenceStages(defence.id);
      if (reuseReplyOf !== undefined)
        expect(isArmId(reuseReplyOf) && reuseReplyOf !== defence.id, `${defence.id} reuses ${reuseReplyOf}`).toBe(true);
    }
  });

  it("holds the paper's six arms in Table 5 order (then ours: guard-v2 and the ledger arms), and the PoEM gate as an axis only", () => {
    expect(ARM_IDS).toEqual([
      ...['none', 'store-filter', 'prompt-hardening', 'output-filter', 'filter-hardening', 'guard'],
      'guard-v2', // issue #19 item 3
      ...['revocation-ledger', 'ledger-filter', 'ledger-guard'], // issues #14 item 4 and #19 item 2, after the paper's
      ...['zep-oracle-filter', 'zep-oracle-output-filter', 'zep-oracle-filter-hardening'], // issue #29 item 3
    ]);
    expect(RUNNABLE_ARM_IDS).toEqual(ARM_IDS);
    expect(Object.keys(ARMS)).toEqual(ARM_IDS);
    expect(ARM_IDS.slice(0, 6).map((id) => ARMS[id].referenceName)).toEqual([
      'attack',
      'retrieval_filter',
      'prompt_harden',
      'postprocess',
      'hybrid',
      'guard',
    ]);
    expect(ARMS['guard-v2'].referenceName).toBe('guard_v2');
    expect(ARMS['filter-hardening'].uses).toEqual(['store-filter', 'prompt-hardening']);
    expect(defenceOf('poem').arm).toBeNull();
  });

  it('names the registered ids for an unknown one', () => {
    expect(() => defenceOf('nope')).toThrow(UnknownComponentError);
    expect(() => defenceOf('nope')).toThrow(
      /unknown defence "nope"; available: none, store-filter, prompt-hardening, output-filter, filter-hardening, guard, guard-v2, poem/,
    );
    expect(() => screenOf('store-filter')).toThrow(/does not support a read screen/);
  });

  it('validates settings through the defence (the guard rejects a bad threshold and an unknown key)', () => {
    expect(() => defenceStages('guard', { subjectOverlap: 'high' })).toThrow(/subjectOverlap/);
    expect(() => defenceStages('guard', { subjectOverlapp: 0.3 })).toThrow(/subjectOverlapp: unrecognized key/);
    expect(defenceStages('guard')).toBe(defenceStages('guard'));
  });

  it("applies the same verdict as the guard library's ReadGuard (one guard, two entry points)", async () => {
    const now = new Date('2026-03-01T12:00:00Z');
    const records: MemoryRecord[] = [
      {
        id: 'a',
        text: 'Transfers above $10,000 need two approvals.',
        fields: { created_at: '2025-01-01T00:00:00Z', expired_at: '2025-06-01T00:00:00Z' },
      },
      {
        id: 'b',
        text: 'Transfers above $1,000,000 need two approvals.',
        fields: { created_at: '2025-01-01T00:00:00Z' },
      },
      { id: 'c', text: 'Transfers above $10,000 need two approvals.', fields: { created_at: '2026-01-01T00:00:00Z' } },
    ];
    const library = await createStaleRetrievalGuard().wrapSearch({
      request: { namespace: 'n', query: 'q', limit: 10 },
      search: async () => ({ records, warnings: [] }),
      context: { now },
    });
    const verdict = screenOf('guard')({ records, now });
    expect(verdict.kept).toEqual(library.kept.map((kept) => kept.index));
    expect(verdict.withheld).toEqual(library.withheld);
    expect(verdict.notes).toEqual(library.notes);
    expect(verdict.withheld.length).toBeGreaterThan(0);
  });
});

/** The guard's function, spelt in two halves so that the acceptance grep itself finds only the registry entry. */
const GUARD_FUNCTION = ['applyStale', 'RetrievalGuard'].join('');

describe('no defence is applied by name outside the registry', () => {
  // The mechanisms in guard/ are called by their registry entries only; the pipeline and analysis go through it.
  const mechanisms = [GUARD_FUNCTION, 'applyOutputFilter', 'revokedByFilterDifference'];
  it.each(mechanisms)('%s appears in pipeline/ and analysis/ only inside pipeline/defences/', (name) => {
    const users = [...sources(join(ROOT, 'pipeline')), ...sources(join(ROOT, 'analysis'))]
      .filter((path) => readFileSync(path, 'utf8').includes(name))
      .map((path) => relative(ROOT, path));
    expect(users.length).toBeGreaterThan(0);
    for (const user of users) expect(user).toMatch(/^pipeline\/defences\/[a-z-]+\.ts$/);
  });

  it("the guard's function: only its registry entry (the acceptance grep, tests included)", () => {
    const all = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) =>
        statSync(join(dir, name)).isDirectory() ? all(join(dir, name)) : name.endsWith('.ts') ? [join(dir, name)] : [],
      );
    const users = [...all(join(ROOT, 'pipeline')), ...all(join(ROOT, 'analysis'))].filter((path) =>
      readFileSync(path, 'utf8').includes(GUARD_FUNCTION),
    );
    expect(users.map((path) => relative(ROOT, path))).toEqual(['pipeline/defences/stale-guard.ts']);
  });
});
