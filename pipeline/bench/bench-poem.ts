// Bench rows for the PoEM ledger: the grounding check at ledger size N, incremental against a full verification.
import { createExecutionLedger } from '../../guard/execution-ledger.js';
import { generateLedgerKey } from '../../guard/execution-ledger-key.js';
import { createMemoryLedgerStorage } from '../../guard/execution-ledger-storage.js';
import { createProofOfExecutionGate } from '../../guard/proof-of-execution-gate.js';
import { msSince } from './bench-guard.js';

/** One ledger size. */
export interface PoemBenchRow {
  /** Events in the ledger. */
  events: number;
  /** µs per `reader.contains` (the grounding check: verify what was appended, then the index lookup). */
  checkMicros: number;
  /** µs per `gate.check` on a skip (the check plus the gate's decision record). */
  gateMicros: number;
  /** µs of one `verifyChain()` by a reader that opens the ledger (every MAC from genesis). */
  fullMicros: number;
  /** fullMicros / checkMicros. */
  ratio: number;
}

const MAPPING = { bench: { unsafeAction: 'SKIP', safeAction: 'PERFORM', safetyStep: 'dual-approval' } } as const;

/** Grows one in-memory ledger (as a run's action layer keeps it) through the sizes and measures at each. */
export async function benchPoem(quick: boolean): Promise<PoemBenchRow[]> {
  const sizes = quick ? [10, 1_000] : [10, 100, 1_000, 10_000, 100_000];
  const key = generateLedgerKey();
  const storage = createMemoryLedgerStorage();
  const { writer, reader } = createExecutionLedger({ key, storage });
  const gate = createProofOfExecutionGate({ ledger: reader, mapping: MAPPING });
  const rows: PoemBenchRow[] = [];
  let events = 0;
  for (const size of sizes) {
    for (; events < size; events += 1) await writer.append({ action: 'dual-approval', subject: `request ${events}` });
    const calls = quick ? 200 : 20_000;
    const perCall = async (call: (index: number) => Promise<unknown>): Promise<number> => {
      let best = Number.POSITIVE_INFINITY;
      for (let repeat = 0; repeat < 3; repeat += 1) {
        const start = process.hrtime.bigint();
        for (let index = 0; index < calls; index += 1) await call(index);
        best = Math.min(best, (msSince(start) * 1000) / calls);
      }
      return best;
    };
    const checkMicros = await perCall((index) => reader.contains('dual-approval', `request ${index % size}`));
    const gateMicros = await perCall((index) =>
      gate.check({ scenario: 'bench', proposedAction: 'SKIP', subject: `request ${index % size}` }),
    );
    let fullMicros = Number.POSITIVE_INFINITY;
    for (let repeat = 0; repeat < (size >= 100_000 ? 2 : 3); repeat += 1) {
      const opened = createExecutionLedger({ key, storage }).reader;
      const start = process.hrtime.bigint();
      const verification = await opened.verifyChain();
      fullMicros = Math.min(fullMicros, msSince(start) * 1000);
      if (!verification.ok) throw new Error(`bench ledger failed verification: ${verification.reason}`);
    }
    rows.push({ events: size, checkMicros, gateMicros, fullMicros, ratio: fullMicros / checkMicros });
  }
  return rows;
}
