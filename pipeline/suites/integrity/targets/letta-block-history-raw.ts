// Raw access to Letta's core-memory checkpoint history (block_history rows, block.current_history_entry_id) through psql.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { ContextName, JsonValue, RawAccess, RawRecord, RawSnapshot } from './integrity-target.js';
import { sqlText, withRawPostgres, type PostgresDir, type RawPostgres } from './raw-postgres-dir.js';
import { spawnSync } from 'node:child_process';

/** Where the stopped store is and which block each context owns. */
export interface LettaStore extends PostgresDir {
  /** The block id of each context: the owner of its history rows. */
  blocks: Record<ContextName, string>;
  /** Where T9's whole-store copy is kept (outside the data directory). */
  snapshotDir: string;
}

interface HistoryRow {
  id: string;
  block_id: string;
  sequence_number: number;
  description: string | null;
  label: string;
  value: string;
  limit: number;
  metadata_: Record<string, JsonValue> | null;
  actor_type: string | null;
  actor_id: string | null;
}

const COLUMNS = 'id, block_id, sequence_number, description, label, value, "limit", metadata_, actor_type, actor_id';
/** The checkpoint's copied block state: what Letta's undo/redo copies back into the block (the record's body). */
const bodyOf = (row: HistoryRow): string =>
  canonicalJson({
    description: row.description,
    label: row.label,
    value: row.value,
    limit: row.limit,
    metadata_: row.metadata_,
  });

const toRaw = (row: HistoryRow): RawRecord => ({
  slot: row.id,
  owner: row.block_id,
  position: row.sequence_number,
  text: row.value,
  body: bodyOf(row),
  labels: { ...(row.metadata_ ?? {}), actor_type: row.actor_type, actor_id: row.actor_id },
});

const json = (value: JsonValue | undefined): string =>
  value === undefined || value === null ? 'NULL' : `${sqlText(JSON.stringify(value))}::json`;
const nullable = (value: JsonValue | undefined): string => (typeof value === 'string' ? sqlText(value) : 'NULL');

function copyTree(from: string, to: string, log: (line: string) => void): void {
  // cp -a keeps the files' owner (the server's user) and modes, which the data directory needs to open again.
  for (const command of [
    ['rm', '-rf', to],
    ['cp', '-a', from, to],
  ]) {
    log(command.join(' '));
    const result = spawnSync(command[0] as string, command.slice(1), { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command.join(' ')} failed: ${result.stderr.trim()}`);
  }
}

/**
 * Raw access over `block_history`. Records are checkpoints; a context is one block; the store's order is
 * `sequence_number`. The block row is the separate head: `current_history_entry_id` plus the copied state.
 */
export function lettaBlockHistoryRawAccess(store: LettaStore, log: (command: string) => void): RawAccess {
  const db = <T>(work: (pg: RawPostgres) => T): T => withRawPostgres(store, log, work);
  const row = (record: RawRecord) =>
    db((pg) => {
      const [found] = pg.rows<HistoryRow>(
        `SELECT ${COLUMNS} FROM block_history WHERE id = ${sqlText(record.slot)}`,
        'id',
      );
      if (!found) throw new Error(`no block_history row ${record.slot}`);
      return found;
    });
  return {
    list: async (context) =>
      db((pg) =>
        pg.rows<HistoryRow>(
          `SELECT ${COLUMNS} FROM block_history WHERE block_id = ${sqlText(store.blocks[context])}`,
          'sequence_number',
        ),
      ).map(toRaw),
    async writeBody(record, body) {
      const moved = parseBody(body);
      db((pg) =>
        pg.sql(
          `UPDATE block_history SET description = ${nullable(moved.description)}, label = ${sqlText(String(moved.label))}, value = ${sqlText(String(moved.value))}, "limit" = ${Number(moved.limit)}, metadata_ = ${json(moved.metadata_)} WHERE id = ${sqlText(record.slot)}`,
        ),
      );
    },
    async remove(record) {
      // block.current_history_entry_id references the tip: a superuser's session skips that foreign-key trigger
      // (session_replication_role = replica), so exactly the row goes; T2 then repoints the head (moveHead).
      db((pg) =>
        pg.sql(`SET session_replication_role = replica; DELETE FROM block_history WHERE id = ${sqlText(record.slot)}`),
      );
    },
    async changeMeaning(record) {
      db((pg) =>
        pg.sql(
          `UPDATE block_history SET value = ${sqlText(changedNumber(record.text).text)} WHERE id = ${sqlText(record.slot)}`,
        ),
      );
    },
    async forge(tip) {
      const template = await row(tip);
      const id = `block_hist-${randomUUID()}`;
      // Every column copied from the tip, except a new id, the next sequence number and the attacker's value.
      db((pg) =>
        pg.sql(
          `INSERT INTO block_history (id, block_id, sequence_number, description, label, value, "limit", metadata_, actor_type, actor_id, organization_id, created_at, updated_at, is_deleted, _created_by_id, _last_updated_by_id) SELECT ${sqlText(id)}, block_id, sequence_number + 1, description, label, ${sqlText(changedNumber(template.value).text)}, "limit", metadata_, actor_type, actor_id, organization_id, created_at, updated_at, is_deleted, _created_by_id, _last_updated_by_id FROM block_history WHERE id = ${sqlText(tip.slot)}`,
        ),
      );
    },
    async moveHead(context, newTip) {
      if (!newTip) throw new Error('no record left to point the head at');
      // What Letta's own undo does to the block: point at the checkpoint and copy its state into the block.
      db((pg) =>
        pg.sql(
          `UPDATE block SET current_history_entry_id = h.id, value = h.value, label = h.label, description = h.description, "limit" = h."limit", metadata_ = h.metadata_ FROM block_history h WHERE block.id = ${sqlText(store.blocks[context])} AND h.id = ${sqlText(newTip.slot)}`,
        ),
      );
    },
    async relabel(record) {
      const current = await row(record);
      const metadata = current.metadata_ ?? {};
      const changed = { ...metadata, source: metadata.source === 'user' ? 'web' : 'user' };
      db((pg) => pg.sql(`UPDATE block_history SET metadata_ = ${json(changed)} WHERE id = ${sqlText(record.slot)}`));
    },
    async snapshot(): Promise<RawSnapshot> {
      copyTree(store.pgdata, store.snapshotDir, log);
      return { restore: async () => copyTree(store.snapshotDir, store.pgdata, log) };
    },
  };
}

/** The store's data directory and snapshot location inside a cell's store directory. */
export const lettaStorePaths = (storeDir: string) => ({
  pgdata: join(storeDir, 'pgdata'),
  snapshotDir: join(storeDir, '..', 't9-copy-of-pgdata'),
});
