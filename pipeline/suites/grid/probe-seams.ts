// What a probe may put between seeding and reading: the revocation ledger client (issue #19 item 2) and the at-rest
// un-revoke edit (`--tamper unrevoke`, issue #14 item 3). Both go through what the backend itself owns.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { MemoryBackend, MemoryRecord, SeedMode, TamperReport } from '../../../backends/memory-backend.js';
import { UnsupportedFeatureError } from '#core/errors.js';
import { openRevocationLedger, type LedgerVerdict } from '../../../guard/revocation-ledger.js';
import { withRevocationLedger, type LedgeredBackend } from '../../../guard/revocation-ledger-client.js';
import { carriesRevokedStatement } from './app-revocation.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { applyScreens } from '../../defences/screens.js';
import { unitDefences } from '../../defences/compose.js';
import type { ProbeRecord } from '../../run-log/run-log.js';

/** The at-rest edits `pnpm eval --tamper` can apply. */
export type TamperEdit = 'unrevoke';

/** Where a probe's ledger lives: the chain in the system's work directory, the witness in a directory of its own. */
export interface ProbeLedgerSettings {
  /** HMAC key (the run's ledger key). */
  key: Uint8Array;
  /** The system's work directory. */
  workDir: string;
}

/** A probe's ledger client, for one namespace. */
export interface ProbeLedger {
  /** The system behind the client: seed through it. */
  writer: MemoryBackend;
  /** After a natural-mode insert: the application supersedes v1 by v2 (the second episode revises the first). */
  afterInsert(scenario: Pick<Scenario, 'v1' | 'v2'>, mode: SeedMode, now: Date): Promise<void>;
  /** The ledger's verdict on each record of a read. */
  verdicts(records: readonly MemoryRecord[], now: Date): LedgerVerdict[];
}

/** Opens a fresh ledger for `namespace` (any earlier one of a re-run probe is removed first). */
export function openProbeLedger(backend: MemoryBackend, namespace: string, settings: ProbeLedgerSettings): ProbeLedger {
  const file = namespace.replace(/[^A-Za-z0-9._-]/g, '_');
  const chainDir = join(settings.workDir, 'revocation-ledger');
  const witnessDir = join(settings.workDir, 'revocation-ledger-witness');
  const path = join(chainDir, `${file}.jsonl`);
  const witnessPath = join(witnessDir, `${file}.json`);
  for (const dir of [chainDir, witnessDir]) mkdirSync(dir, { recursive: true });
  for (const old of [path, witnessPath]) rmSync(old, { force: true });
  const client: LedgeredBackend = withRevocationLedger(
    backend,
    openRevocationLedger({ path, witnessPath, key: settings.key }),
  );
  return {
    writer: client.backend,
    async afterInsert(scenario, mode, now) {
      if (mode === 'natural') await client.supersede(namespace, scenario.v1, scenario.v2, now);
    },
    verdicts: (records, now) => client.verdicts(namespace, records, now),
  };
}

/** The arm whose screens the ledger's side-by-side row applies: the ledger, then the stale guard. */
const LEDGER_GUARD_ARM = 'ledger-guard';

/**
 * The probe's `ledger` field: the verdicts on both reads; which default-read records carry a statement the
 * application revoked (v1: its direct-mode revocation, its natural-mode supersession); and what the ledger with the
 * stale guard withholds from the default read at `guardNow`, beside Table 9's guard alone.
 */
export function ledgerProbeFields(
  ledger: ProbeLedger,
  scenario: Pick<Scenario, 'v1'>,
  reads: { default: readonly MemoryRecord[]; filtered: readonly MemoryRecord[] | null },
  now: Date,
  guardNow: Date,
): NonNullable<ProbeRecord['ledger']> {
  const verdicts = ledger.verdicts(reads.default, now);
  const { screens } = unitDefences({ uses: [LEDGER_GUARD_ARM], guard: false, poem: false });
  const { kept } = applyScreens(reads.default, screens, () => guardNow, verdicts);
  return {
    default: verdicts,
    filtered: reads.filtered ? ledger.verdicts(reads.filtered, now) : null,
    revokedByApplication: reads.default.map((record) => carriesRevokedStatement(record.text, scenario.v1)),
    guardWithheldTexts: reads.default.filter((_, index) => !kept.includes(index)).map((record) => record.text),
  };
}

/** The tamper's outcome: what it did and which records were revoked before it, or why the system cannot take it. */
export type TamperOutcome = { applied: TamperReport; revokedBefore: ReadonlySet<string> } | { notApplicable: string };

/**
 * Applies `edit` to `namespace` through the backend's own `unrevoke`. A system without one, or one that throws
 * `UnsupportedFeatureError`, is refused by name. `revokedBefore` holds the ids the store held revoked before the
 * edit, so exposure still labels a revived record as the revoked policy it is (its status fields are gone).
 */
export async function applyTamper(backend: MemoryBackend, edit: TamperEdit, namespace: string): Promise<TamperOutcome> {
  if (!backend.unrevoke)
    return {
      notApplicable: `${backend.id} cannot take --tamper ${edit}: it keeps no revocation status to clear (status fields: ${backend.description.statusFields.join(', ') || 'none'})`,
    };
  const listed = backend.listRecords ? await backend.listRecords(namespace) : [];
  const revokedBefore = new Set(listed.filter((stored) => stored.revoked).map((stored) => stored.record.id));
  try {
    return { applied: await backend.unrevoke(namespace), revokedBefore };
  } catch (error) {
    if (error instanceof UnsupportedFeatureError)
      return { notApplicable: `${backend.id} cannot take --tamper ${edit}: ${error.message}` };
    throw error;
  }
}
