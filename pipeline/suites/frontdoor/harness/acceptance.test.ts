import { describe, expect, it } from 'vitest';
import { createReferenceBackend } from '../targets/reference-backend.js';
import type { FrontdoorCell, FrontdoorResults } from './frontdoor-results.js';
import { runFrontdoor } from './run-frontdoor.js';
import { testPlan, wrapBackend } from './test-plan.js';

const cellsOf = (results: FrontdoorResults, target: string): Record<string, FrontdoorCell> =>
  Object.fromEntries(
    results.targets.find((row) => row.id === target)!.cells.map((cell) => [cell.attack.split('@')[0]!, cell]),
  );

describe('acceptance: the reference stores under --mutate', async () => {
  const results = await runFrontdoor(await testPlan(['reference', 'reference-defended'], { mutate: true }));
  const defended = cellsOf(results, 'reference-defended');
  const reference = cellsOf(results, 'reference');

  it('reference-defended keeps every attack out on external and laundered', () => {
    for (const cell of Object.values(defended)) {
      expect(cell.channels.external, cell.attack).toBe('kept out');
      expect(cell.channels.laundered, cell.attack).toBe('kept out');
      expect(cell.variants).toHaveLength(7);
      expect(cell.attackerLevel).toBe(2);
    }
  });

  it('reference-defended keeps retrieval_hijack and indirect_prompt_injection out on all three channels, every mutation', () => {
    for (const attack of ['retrieval_hijack', 'indirect_prompt_injection', 'cross_session_bleed']) {
      expect(defended[attack]!.verdict, attack).toBe('kept out');
      expect(defended[attack]!.channels['agent-laundered'], attack).toBe('kept out');
      expect(defended[attack]!.trials, attack).toBe(5 * 3 * 7);
    }
  });

  it('reference-defended surfaces memory_injection only on agent-laundered, the limit no store can close', () => {
    expect(defended.memory_injection).toMatchObject({
      verdict: 'surfaced',
      channels: { external: 'kept out', laundered: 'kept out', 'agent-laundered': 'surfaced' },
      fixtures: { fell: 5, total: 5 },
    });
    expect(defended.memory_injection!.detail).toContain('got through: agent-laundered via every variant');
  });

  it('reference surfaces everything except where isolation is by namespace', () => {
    expect(reference.cross_session_bleed!.verdict).toBe('kept out');
    for (const [attack, cell] of Object.entries(reference)) {
      if (attack === 'cross_session_bleed') continue;
      expect(cell.channels, attack).toEqual({
        external: 'surfaced',
        laundered: 'surfaced',
        'agent-laundered': 'surfaced',
      });
      expect(cell.fixtures, attack).toEqual({ fell: 5, total: 5 });
    }
    expect(reference.update_poisoning!.detail).toContain('alongside in 105 of 105');
    expect(reference.retrieval_hijack!.detail).toContain('external 1,1,1,1,1');
  });
});

describe('mutation is what separates a defence from a filter tuned to one string', () => {
  it('a share-of-words stuffing threshold holds the base hijack and is walked under by dilution', async () => {
    const plan = await testPlan([], { mutate: true, attacks: ['retrieval_hijack'] });
    const trustedKeys = [plan.writers.agent.publicKeyPem];
    plan.targets = [
      {
        id: 'share-threshold',
        version: 'model',
        ranksByEmbedder: false,
        load: async () => createReferenceBackend({ defences: { trustedKeys, stuffingCheck: 'share' } }),
      },
    ];
    const file = plan.fixtures.retrieval_hijack;
    // A share threshold also drops short genuine answers: on rh-4 the victim's own answer goes, so that fixture is n/a.
    const falsePositive = {
      ...plan,
      variants: ['base' as const],
      fixtures: {
        ...plan.fixtures,
        retrieval_hijack: { ...file, fixtures: file.fixtures.filter((f) => f.id === 'rh-4-work-airline') },
      },
    };
    expect(cellsOf(await runFrontdoor(falsePositive), 'share-threshold').retrieval_hijack!.detail).toContain(
      'positive control failed',
    );
    plan.fixtures = {
      ...plan.fixtures,
      retrieval_hijack: { ...file, fixtures: file.fixtures.filter((f) => f.id !== 'rh-4-work-airline') },
    };
    const base = cellsOf(await runFrontdoor({ ...plan, variants: ['base'] }), 'share-threshold').retrieval_hijack!;
    expect(base.verdict).toBe('kept out');
    const mutated = cellsOf(await runFrontdoor(plan), 'share-threshold').retrieval_hijack!;
    expect(mutated.verdict).toBe('surfaced');
    expect(mutated.detail).toMatch(/agent-laundered via dilute/);
  });
});

describe('acceptance: cross_session_bleed on mem0 and its positive control', () => {
  it('is kept out on mem0: reads are filtered on user_id', async () => {
    const results = await runFrontdoor(await testPlan(['mem0'], { attacks: ['cross_session_bleed'] }));
    expect(cellsOf(results, 'mem0').cross_session_bleed).toMatchObject({
      verdict: 'kept out',
      fixtures: { fell: 0, total: 5 },
      trials: 15,
    });
  });

  it("is n/a, not kept out, when the victim's read returns nothing", async () => {
    const plan = await testPlan(['mem0'], { attacks: ['cross_session_bleed'] });
    const real = plan.targets[0]!;
    plan.targets = [
      {
        ...real,
        load: async () => wrapBackend(await real.load(), { search: async () => ({ records: [], warnings: [] }) }),
      },
    ];
    const cell = cellsOf(await runFrontdoor(plan), 'mem0').cross_session_bleed!;
    expect(cell.verdict).toBe('n/a');
    expect(cell.channels).toEqual({ external: 'n/a', laundered: 'n/a', 'agent-laundered': 'n/a' });
    expect(cell.detail).toContain('positive control failed');
  });
});

describe('update and metadata controls', () => {
  it('update_poisoning runs its control before the attacker writes and says replaced when the stated fact is gone', async () => {
    const plan = await testPlan([], { attacks: ['update_poisoning'] });
    // A store that applies a correction by replacing what the namespace held (recognised here by the corrected fact).
    const corrections = plan.fixtures.update_poisoning.fixtures.map((fixture) => fixture.attacker.key);
    plan.targets = [
      {
        id: 'replacing',
        version: 'model',
        ranksByEmbedder: false,
        load: async () => {
          const store = createReferenceBackend();
          return wrapBackend(store, {
            insert: async (request) => {
              const text = request.writes.mode === 'direct' ? request.writes.current.join(' ') : '';
              if (corrections.some((key) => text.includes(key))) await store.reset(request.namespace);
              return store.insert(request);
            },
          });
        },
      },
    ];
    const cell = cellsOf(await runFrontdoor(plan), 'replacing').update_poisoning!;
    expect(cell.verdict).toBe('surfaced');
    expect(cell.detail).toContain('served replaced in 15 of 15 surfaced trials');
  });

  it('metadata_poisoning is n/a when the store lets an untagged memory through its filter (the negative control)', async () => {
    const plan = await testPlan([], { attacks: ['metadata_poisoning'] });
    plan.targets = [
      {
        id: 'ignores-filter',
        version: 'model',
        ranksByEmbedder: false,
        load: async () => {
          const store = createReferenceBackend();
          return wrapBackend(store, {
            search: async ({ metadataFilter: _dropped, ...request }) => store.search(request),
          });
        },
      },
    ];
    const cell = cellsOf(await runFrontdoor(plan), 'ignores-filter').metadata_poisoning!;
    expect(cell.verdict).toBe('n/a');
    expect(cell.detail).toContain('negative control failed');
  });
});
