// Test helper: cuts the store's own newest writes (context B's two newest records, seeded after A's) with the target's
// raw access and returns what the audit says, to show where a head-less chain stops (agmi's accepted T2 cell).
import { seedRecords } from '../harness/seed-plan.js';
import type { IntegrityTarget } from './integrity-target.js';

/**
 * Seeds A then B through the target, removes B's two newest records (raw access: with their receipts, and the head
 * where the target's attacker holds it), restarts and audits B. Returns `ok` or the audit's reason.
 */
export async function auditAfterChainTailCut(target: IntegrityTarget, dir: string): Promise<string> {
  const store = await target.createStore({ dir, cellId: `${target.id}-tail-cut`, log: () => undefined });
  try {
    const seeding = await store.start();
    await seeding.seed('A', seedRecords('A'));
    await seeding.seed('B', seedRecords('B'));
    await seeding.stop();
    const before = await store.raw.list('B');
    for (const record of before.slice(-2).reverse()) await store.raw.remove(record);
    const left = (await store.raw.list('B')).map((record) => record.slot).join(',');
    if (
      left !==
      before
        .slice(0, -2)
        .map((record) => record.slot)
        .join(',')
    )
      throw new Error(`the tail cut did not land: B holds ${left}`);
    const session = await store.start();
    try {
      if (!session.audit) throw new Error(`${target.id} has no audit`);
      const audit = await session.audit('B');
      return audit.ok ? 'ok' : audit.reason;
    } finally {
      await session.stop();
    }
  } finally {
    await store.dispose();
  }
}
