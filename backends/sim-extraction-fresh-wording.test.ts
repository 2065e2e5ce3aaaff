import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarioDir, loadScenarios } from '../scenarios/index.js';
import { simContradicts, splitFacts } from './sim-extraction-model.js';

// Issue #29 item 4: which v1/v2 pairs the simulator supersedes (some v1 sentence contradicted by some v2 sentence).
// Before (sim-extractor-v2, the fixed word list): nine 8/9, set A 2/12, set B 5/10.
const superseded = async (scenarios: Awaited<ReturnType<typeof loadScenarios>>) =>
  scenarios
    .filter((s) => splitFacts(s.v1).some((a) => splitFacts(s.v2).some((b) => simContradicts(a, b))))
    .map((s) => s.id);
const dir = (name: string) => join(import.meta.dirname, '..', 'scenarios', name);

describe('sim-extractor-v3 on v1/v2 pairs', () => {
  it("supersedes all nine of the paper's pairs (v2: 8, instruction_injection missed)", async () => {
    expect(await superseded(await loadScenarios())).toHaveLength(9);
  });

  it('supersedes 3 of the 12 fresh-wording pairs of set A (tuning set after its first measurement)', async () => {
    expect(await superseded(await loadScenarioDir(dir('fresh-wording')))).toEqual([
      'clinical_verbal_order_dispensing',
      'credentials_in_repository',
      'server_room_tailgating',
    ]);
  });

  it('supersedes 5 of the 10 held-out pairs of set B, the same five as v2', async () => {
    expect(await superseded(await loadScenarioDir(dir('fresh-wording-heldout')))).toEqual([
      'minor_field_trip_consent',
      'driver_rest_hours',
      'hazmat_label_shipping',
      'refund_without_return',
      'machine_guard_bypass',
    ]);
  });
});
