// Pinned rows of agmi's SQLite family on the real PyPI packages, each in its store environment (pnpm test:stores).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import { seedRecords } from '../harness/seed-plan.js';
import type { IntegrityTarget } from './integrity-target.js';
import { createLanggraphEncryptedTarget } from './langgraph-encrypted-target.js';
import { createLanggraphLedgerTarget } from './langgraph-ledger-target.js';
import { allControlsHeld, measuredRow } from './measured-row.js';
import { createOpenaiAgentsSqliteTarget, OPENAI_AGENTS_LATEST } from './openai-agents-sqlite-target.js';
import { withRawSqlite } from '../../../../backends/store-tools/raw-sqlite.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
// Nine cells, each a few Python process starts (openai-agents imports the whole SDK): minutes on a shared two-core box.
const ROW_TIMEOUT = 900_000;
const scratch = mkdtempSync(join(tmpdir(), 'sqlite-family-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const skipReason = async (target: IntegrityTarget): Promise<string | null> => {
  const reason = (await target.unavailable?.())?.reason ?? null;
  if (reason) console.log(`[stores] ${target.id} skipped: ${reason}`);
  return reason;
};
const reasonsOf = (cells: readonly { edit: string; reason?: string | null }[]) =>
  Object.fromEntries(cells.map((cell) => [cell.edit, cell.reason ?? '']));

const agents = createOpenaiAgentsSqliteTarget(root);
const agentsSkip = await skipReason(agents);
const agentsLatest = createOpenaiAgentsSqliteTarget(root, { latest: true });
const agentsLatestSkip = await skipReason(agentsLatest);
const ledger = createLanggraphLedgerTarget(root);
const ledgerSkip = await skipReason(ledger);
const encrypted = createLanggraphEncryptedTarget(root);
const encryptedSkip = await skipReason(encrypted);

// Pinned measurements (agmi practice): a version move or a verdict move fails the test; re-measure then.
describe('OpenAI Agents SDK SQLiteSession', () => {
  it.skipIf(agentsSkip !== null)(
    'openai-agents 0.20.0: all nine edits accepted, as agmi measured',
    async () => {
      const description = await agents.describe();
      expect(description.versions).toEqual({ 'openai-agents': '0.20.0' });
      expect(description.detection).toBe('read');
      const { row, result } = await measuredRow(agents);
      expect(row).toEqual(ALL_EDITS.map((edit) => `${edit} accepted`));
      expect(allControlsHeld(result)).toBe(true);
      // T1 changed the number inside the JSON item, which get_items() decoded and served.
      expect(result.cells[0]?.observation).toBe('served 5 records; 1 of 1 edited contents among them');
    },
    ROW_TIMEOUT,
  );

  it.skipIf(agentsLatestSkip !== null)(
    `openai-agents ${OPENAI_AGENTS_LATEST} (newest): the same nine accepted`,
    async () => {
      expect((await agentsLatest.describe()).versions).toEqual({ 'openai-agents': OPENAI_AGENTS_LATEST });
      const { row, result } = await measuredRow(agentsLatest);
      expect(row).toEqual(ALL_EDITS.map((edit) => `${edit} accepted`));
      expect(allControlsHeld(result)).toBe(true);
    },
    ROW_TIMEOUT,
  );
});

describe('langgraph-ledger over SqliteSaver', () => {
  it.skipIf(ledgerSkip !== null)(
    'langgraph-ledger 0.3.0: verify_thread() reports T1–T4, T6, T7 and T9; T5 and T8 pass it, as agmi measured',
    async () => {
      const description = await ledger.describe();
      expect(description.versions).toEqual({
        'langgraph-ledger': '0.3.0',
        'langgraph-checkpoint-sqlite': '3.1.1',
        'langgraph-checkpoint': '4.3.2',
      });
      expect(description.detection).toBe('audit');
      const { row, result } = await measuredRow(ledger);
      expect(row).toEqual([
        'T1 reported/audit',
        'T2 reported/audit',
        'T3 reported/audit',
        'T4 reported/audit',
        'T5 accepted',
        'T6 reported/audit',
        'T7 reported/audit',
        'T8 accepted',
        'T9 reported/audit',
      ]);
      expect(allControlsHeld(result)).toBe(true);
      const reasons = reasonsOf(result.cells);
      expect(reasons.T1).toMatch(/^verify_thread: checkpoint content drifted: /);
      expect(reasons.T2).toMatch(/^verify_thread: checkpoint missing from saver: .+; checkpoint missing from saver: /);
      // The ledger sits outside store/, so after the rollback it still names the newer checkpoint.
      expect(reasons.T9).toMatch(/^verify_thread: checkpoint missing from saver: /);
    },
    ROW_TIMEOUT,
  );
});

describe('LangGraph SqliteSaver with EncryptedSerializer (AES-EAX)', () => {
  it.skipIf(encryptedSkip !== null)(
    'a flipped ciphertext byte is refused on read (EAX tag); every edit that moves genuine ciphertext, a plaintext forgery and a metadata edit are accepted',
    async () => {
      const description = await encrypted.describe();
      expect(description.versions).toEqual({
        'langgraph-checkpoint-sqlite': '3.1.1',
        'langgraph-checkpoint': '4.3.2',
        pycryptodome: '4.5.0',
      });
      const { row, result } = await measuredRow(encrypted);
      expect(row).toEqual(['T1 rejected/read', ...ALL_EDITS.slice(1).map((edit) => `${edit} accepted`)]);
      expect(allControlsHeld(result)).toBe(true);
      expect(reasonsOf(result.cells).T1).toBe('ValueError: MAC check failed');
      // T5: the serializer loads a type without "+aes" unencrypted, so a keyless plaintext checkpoint is the head.
      expect(result.cells[4]?.observation).toContain('1 of 1 edited contents among them');
    },
    ROW_TIMEOUT,
  );

  it.skipIf(encryptedSkip !== null)(
    'T1 by downgrade: a_m rewritten as a plaintext json checkpoint, no key, is served as genuine',
    async () => {
      const dir = mkdtempSync(join(scratch, 'downgrade-'));
      const commands: string[] = [];
      const store = await encrypted.createStore({ dir, cellId: 'downgrade', log: (line) => commands.push(line) });
      try {
        const seeding = await store.start();
        await seeding.seed('A', seedRecords('A'));
        await seeding.stop();
        const records = await store.raw.list('A');
        const target = records[Math.floor(records.length / 2)];
        expect(target?.text).toMatch(/^<msgpack\+aes checkpoint of \d+ bytes, sha256 [0-9a-f]{16}>$/);
        const forged = 'Context alpha record 2: the approved transfer limit is 900 EUR.';
        withRawSqlite(
          join(dir, 'store', 'checkpoints.db'),
          'store/checkpoints.db',
          (line) => commands.push(line),
          (db) =>
            db.run("UPDATE checkpoints SET type = 'json', checkpoint = ? WHERE checkpoint_id = ?", [
              Buffer.from(
                JSON.stringify({
                  v: 4,
                  id: target?.position,
                  ts: '2026-12-04T00:00:00+00:00',
                  channel_values: { memory: forged },
                  channel_versions: { memory: 3 },
                  versions_seen: {},
                  pending_sends: [],
                  updated_channels: null,
                }),
              ),
              String(target?.position),
            ]),
        );
        const reading = await store.start();
        const outcome = await reading.read('A');
        await reading.stop();
        expect(outcome.status).toBe('served');
        expect(outcome.status === 'served' ? outcome.texts : []).toContain(forged);
        expect(commands).toHaveLength(1);
      } finally {
        await store.dispose();
      }
    },
    ROW_TIMEOUT,
  );
});
