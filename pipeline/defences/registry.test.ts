// The defences seen as a registry of kind `defence`: the same ids as DEFENCES, settings checked by each defence.
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '#core/errors.js';
import { DEFENCE_IDS } from './index.js';
import { DEFENCE_REGISTRY } from './registry.js';

describe('DEFENCE_REGISTRY', () => {
  it('has every registered defence, in order, each summarised with the arm or axis that runs it', () => {
    expect(DEFENCE_REGISTRY.kind).toBe('defence');
    expect(DEFENCE_REGISTRY.ids).toEqual(DEFENCE_IDS);
    expect(DEFENCE_REGISTRY.get('guard').summary).toBe('stale guard: arm (reference guard); --guard on');
    expect(DEFENCE_REGISTRY.get('poem').summary).toBe('PoEM gate: --poem on');
    expect(DEFENCE_REGISTRY.get('filter-hardening').summary).toBe(
      'store filter + prompt hardening: arm (reference hybrid) = store-filter + prompt-hardening',
    );
  });

  it('records settings the defence accepts and refuses the rest with their path', () => {
    expect(DEFENCE_REGISTRY.record('guard', { subjectOverlap: 0.3 })).toEqual({
      kind: 'defence',
      id: 'guard',
      args: { subjectOverlap: 0.3 },
    });
    expect(() => DEFENCE_REGISTRY.record('guard', { subjectOverlap: 'high' })).toThrow(InvalidInputError);
    expect(() => DEFENCE_REGISTRY.record('guard', { nonsense: 1 })).toThrow(/nonsense/);
    expect(() => DEFENCE_REGISTRY.record('shield')).toThrow(/unknown defence "shield"|shield/);
  });
});
