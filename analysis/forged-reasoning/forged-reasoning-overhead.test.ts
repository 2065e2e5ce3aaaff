// Issue #29 item 6: PoEM Table IV's columns computed from a fixture run's records (fixed measured values), never copied.
import { describe, expect, it } from 'vitest';
import type { ForgedReasoningRecord, ReasoningDecision } from '../../pipeline/index.js';
import { overheadRows } from './forged-reasoning-overhead.js';
import { buildPoemTableIV } from '../tables/poem-tables-iv-v.js';
import type { ForgedReasoningSummary } from './forged-reasoning-summary.js';

/** A decision as the trusted layer records it: the gate's verdict and check time, the timed calls, the stored ledger. */
function decision(
  verdict: string | null,
  checkMicros: number,
  callMs: number[],
  ledger: { bytes: number; lines: number },
  extra: Partial<ReasoningDecision> = {},
): ReasoningDecision {
  return {
    condition: 'x',
    written: [],
    dropped: [],
    ledger: { genuine: [], forged: [] },
    messages: [],
    reply: null,
    parsedAction: 'SKIP',
    execution:
      verdict === null
        ? null
        : ({
            gate: 'poem',
            verdict,
            head: { length: ledger.lines, mac: 'm' },
            checkMicros,
          } as ReasoningDecision['execution']),
    skipped: false,
    overhead: { callMs, cachedCalls: 0, ledger },
    ...extra,
  };
}

const unit = (model: string, decisions: ReasoningDecision[]): ForgedReasoningRecord =>
  ({
    type: 'forged-reasoning-end',
    key: { experiment: 'forged-reasoning', scenario: 's', model, defence: 'poem', trial: 0 },
    clean: decisions[0]!,
    attacks: { basic: decisions[1], 'ledger-forgery': decisions[2] },
    benign: { plain: decisions[3] },
  }) as unknown as ForgedReasoningRecord;

const records = [
  unit('m', [
    decision('not-gated', 999, [800], { bytes: 200, lines: 1 }), // not a skip: no grounding check
    decision('overridden', 10, [1000, 1200], { bytes: 210, lines: 1 }),
    // Attack A: a forged line in the ledger: checked, but its ledger is left out of bytes/event.
    decision('ledger-broken', 30, [900], { bytes: 999, lines: 1 }, { ledger: { genuine: [], forged: ['x'] } }),
    decision('allowed', 20, [1100], { bytes: 420, lines: 2 }),
  ]),
];
const models = [{ id: 'm', label: 'm', simulated: false }];

describe('PoEM Table IV columns on a fixture run', () => {
  it('computes the check, the call, their share and bytes per event from the records', () => {
    expect(overheadRows(models, records)).toEqual([
      {
        model: 'm',
        modelLabel: 'm',
        simulated: false,
        checks: 3,
        checkMicros: 20, // median of 10, 30, 20
        ledgerLines: 1, // median of 1, 1, 2
        ledgers: 3,
        bytesPerEvent: (200 + 210 + 420) / 4,
        calls: 5,
        cachedCalls: 0,
        callMs: 1000, // median of 800, 1000, 1200, 900, 1100
        share: 20 / 1_000_000,
      },
    ]);
  });

  it('renders them in poem-IV, the share in ppm; a run with no PoEM check says n/a with the reason', () => {
    const summary = (overhead: ForgedReasoningSummary['overhead']) =>
      ({
        version: 1,
        experiment: 'forged-reasoning',
        simulated: false,
        cells: [{ simulated: false }],
        attacker: [],
        overhead,
      }) as unknown as ForgedReasoningSummary;
    const [table] = buildPoemTableIV([
      { runId: 'r', simulated: false, summary: summary(overheadRows(models, records)) },
    ]);
    const cell = (column: string) => table!.cells.find((c) => c.column === column);
    expect(cell('bytes/event')).toMatchObject({ value: 207.5 });
    expect(cell('grounding check (µs, median)')).toMatchObject({ value: 20 });
    expect(cell('model call (ms, median)')).toMatchObject({ value: 1000 });
    expect(cell("check's share of one call (ppm)")).toMatchObject({ value: 20 });
    const ungated = overheadRows(models, [unit('m', [decision(null, 0, [5], { bytes: 0, lines: 0 })])]);
    const [empty] = buildPoemTableIV([{ runId: 'r', simulated: false, summary: summary(ungated) }]);
    expect(empty!.cells.find((c) => c.column === 'grounding check (µs, median)')).toMatchObject({
      status: 'n/a',
      reason: 'no PoEM check in this run (--defences without poem)',
    });
  });
});
