import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import { main } from '../harness/integrity-command.js';
import { ensurePythonVenv, missingPython } from '../../../../backends/python/python-venv.js';
import { auditAfterChainTailCut } from './chain-tail-cut.js';
import { createInspeximusTarget } from './inspeximus-target.js';
import { createLanggraphSqlitePyTarget } from './langgraph-sqlite-py-target.js';
import { allControlsHeld, measuredRow } from './measured-row.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
// Test setup: create the venv from the pinned requirements when it is missing (CI does it in .ci/install first).
const setupProblem =
  missingPython(root) === null ? null : ensurePythonVenv(root, (line) => console.log(`[python venv] ${line}`));
const reasonFor = async (target: ReturnType<typeof createInspeximusTarget>): Promise<string | null> =>
  setupProblem ?? (await target.unavailable?.())?.reason ?? null;
const everyEdit = [
  ...ALL_EDITS.slice(0, 8).map((edit) => ({ edit, variant: null as 'unrevoke' | null })),
  { edit: 'T8' as const, variant: 'unrevoke' as const },
  { edit: 'T9' as const, variant: null },
];
const scratch = mkdtempSync(join(tmpdir(), 'python-targets-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const langgraph = createLanggraphSqlitePyTarget(root);
const langgraphSkip = await reasonFor(langgraph);
const inspeximus = createInspeximusTarget(root, 'default');
const inspeximusSkip = await reasonFor(inspeximus);
for (const [name, reason] of [
  ['langgraph-sqlite-py', langgraphSkip],
  ['inspeximus', inspeximusSkip],
])
  if (reason) console.log(`[python targets] ${name} skipped: ${reason}`);

// Pinned measurements of the real PyPI libraries (agmi practice): a version move fails the test; re-measure then.
describe('Python stores through the store driver', () => {
  it.skipIf(langgraphSkip !== null)(
    'langgraph-checkpoint-sqlite 3.1.2 matches the published pattern: every edit accepted, C1–C3 holding',
    async () => {
      expect((await langgraph.describe()).versions['langgraph-checkpoint-sqlite']).toBe('3.1.2');
      const { row, result } = await measuredRow(
        langgraph,
        ALL_EDITS.map((edit) => ({ edit, variant: null })),
      );
      expect(row).toEqual(ALL_EDITS.map((edit) => `${edit} accepted`));
      expect(allControlsHeld(result)).toBe(true);
      // msgpack checkpoints: T1 changed the number inside the blob without breaking its encoding, and the saver served it.
      expect(result.cells[0]?.observation).toBe('served 5 records; 1 of 1 edited contents among them');
    },
    180_000,
  );

  it.skipIf(inspeximusSkip !== null)(
    'inspeximus 3.23.1, receipts off (default): every edit accepted; retired memories come back on T8:unrevoke',
    async () => {
      expect((await inspeximus.describe()).versions.inspeximus).toBe('3.23.1');
      const { row, result } = await measuredRow(inspeximus, everyEdit);
      expect(row).toEqual([
        ...ALL_EDITS.slice(0, 8).map((edit) => `${edit} accepted`),
        'T8:unrevoke accepted',
        'T9 accepted',
      ]);
      expect(allControlsHeld(result)).toBe(true);
    },
    180_000,
  );

  it.skipIf(inspeximusSkip !== null)(
    'inspeximus 3.23.1, receipts on WITHOUT a key, sidecar left untouched: T1–T8 and T9 reported by verify_writes() (audit); T8:unrevoke is not',
    async () => {
      const target = createInspeximusTarget(root, 'receipts-unsigned');
      expect(target.id).toBe('inspeximus-receipts-unsigned');
      const described = await target.describe();
      expect(described.versions.inspeximus).toBe('3.23.1');
      expect(described.label).toBe(
        'inspeximus 3.23.1, receipts on WITHOUT a key (unsigned hash chain); the edits leave the receipts sidecar untouched',
      );
      expect(described.config['attacker holds']).toContain('never touch the receipts sidecar');
      const { row, result } = await measuredRow(target, everyEdit);
      expect(row).toEqual([
        ...ALL_EDITS.slice(0, 8).map((edit) => `${edit} reported/audit`),
        'T8:unrevoke accepted',
        'T9 reported/audit',
      ]);
      expect(allControlsHeld(result)).toBe(true);
      expect(result.metric).toMatchObject({ value: 0.5, partial: 8, t9: 'reported' });
      const reasons = Object.fromEntries(result.cells.map((cell) => [cell.variant ?? cell.edit, cell.reason ?? '']));
      expect(reasons.T2).toContain('written but missing from the store (deleted out-of-band)');
      expect(reasons.T5).toContain('covered by NO write receipt');
      expect(reasons.T8).toContain('WHERE it came from');
      expect(reasons.T9).toContain('write log shrank below the head kept outside the store');
      // A retired memory flipped back to active is served by recall() and passes verify_writes() (found 2026-12-03).
      const unrevoke = result.cells.find((cell) => cell.variant === 'unrevoke');
      expect(unrevoke?.controls.c1.detail).toContain('(4 records) and passed the audit');
      expect(unrevoke?.observation).toBe('served 5 records; 1 of 1 edited contents among them');
    },
    180_000,
  );

  it.skipIf(inspeximusSkip !== null)(
    'inspeximus 3.23.1, receipts keyed, attacker holds the store directory (sidecar included): T1–T9 reported by verify_writes(expected_pubkey) (audit), T2 and T9 by the head in the config home',
    async () => {
      const target = createInspeximusTarget(root, 'receipts-keyed');
      expect(target.id).toBe('inspeximus-receipts-keyed');
      const described = await target.describe();
      expect(described.versions.inspeximus).toBe('3.23.1');
      expect(described.label).toBe(
        "inspeximus 3.23.1, receipts on with an Ed25519 key, attacker holds the store directory (SQLite file, receipts sidecar); the user's config home (the chain head) is out of reach",
      );
      expect(described.config).toMatchObject({
        audit: "verify_writes(expected_pubkey=<the key's public half, read from off the store>)",
        key: '<cell>/key/receipt-key.json: outside the store directory and the config home',
      });
      expect(described.tooling).toContain('JSON rewrite of store/memory.db.receipts.json (T2, T3); cp of store/ (T9)');
      const { row, result } = await measuredRow(target, everyEdit);
      expect(row).toEqual([
        ...ALL_EDITS.slice(0, 8).map((edit) => `${edit} reported/audit`),
        'T8:unrevoke accepted',
        'T9 reported/audit',
      ]);
      expect(allControlsHeld(result)).toBe(true);
      expect(result.metric).toMatchObject({ value: 0.5, partial: 8, t9: 'reported' });
      const cells = Object.fromEntries(result.cells.map((cell) => [cell.variant ?? cell.edit, cell]));
      // T2 and T3 deleted the removed records' receipts as well: nothing reads "missing from the store" any more.
      for (const edit of ['T2', 'T3']) {
        expect(
          cells[edit]?.commands.filter((command) => command.includes('store/memory.db.receipts.json')),
        ).toHaveLength(edit === 'T2' ? 2 : 1);
        expect(cells[edit]?.reason).not.toContain('missing from the store');
      }
      expect(cells.T2?.reason).toContain('write log shrank below the head kept outside the store: 8 < 10');
      expect(cells.T3?.reason).toContain('broken chain link');
      expect(cells.T6?.reason).toContain('WHOSE it is');
      expect(cells.T9?.commands).toEqual(['cp -a store store.snapshot', 'rm -rf store && cp -a store.snapshot store']);
      expect(cells.T9?.reason).toContain('write log shrank below the head kept outside the store: 10 < 11');
    },
    180_000,
  );

  it.skipIf(inspeximusSkip !== null)(
    "inspeximus 3.23.1, receipts keyed, attacker also holds the config home: T1–T8 reported (T2 by the chain link B's later receipts hold), T9 accepted",
    async () => {
      const target = createInspeximusTarget(root, 'receipts-keyed-confighome');
      expect(target.id).toBe('inspeximus-receipts-keyed-confighome');
      const described = await target.describe();
      expect(described.versions.inspeximus).toBe('3.23.1');
      expect(described.config['attacker holds']).toBe(
        "the store directory (SQLite file, receipts sidecar) and the user's config home (the chain head)",
      );
      expect(described.tooling).toContain(
        'home/.config/inspeximus/heads/<tag>.json (T2, T3); cp of store/ and home/ (T9)',
      );
      const { row, result } = await measuredRow(target, everyEdit);
      expect(row).toEqual([
        ...ALL_EDITS.slice(0, 8).map((edit) => `${edit} reported/audit`),
        'T8:unrevoke accepted',
        'T9 accepted',
      ]);
      expect(allControlsHeld(result)).toBe(true);
      expect(result.metric).toMatchObject({ value: 0.5, partial: 8, t9: 'accepted' });
      const cells = Object.fromEntries(result.cells.map((cell) => [cell.variant ?? cell.edit, cell]));
      // The head was cut with the chain: the only signal left is the link from context B's receipts (written after
      // A's) to the removed ones, inside their signed payload.
      expect(
        cells.T2?.commands.filter((command) => /^file home\/\.config\/inspeximus\/heads\//.test(command)),
      ).toHaveLength(2);
      expect(cells.T2?.reason).toBe('receipt 3: broken chain link (a prior receipt was altered/removed)');
      expect(cells.T3?.reason).toBe('receipt 2: broken chain link (a prior receipt was altered/removed)');
      expect(cells.T9?.commands).toEqual([
        'cp -a store store.snapshot',
        'cp -a home home.snapshot',
        'rm -rf store && cp -a store.snapshot store',
        'rm -rf home && cp -a home.snapshot home',
      ]);
    },
    180_000,
  );

  it.skipIf(inspeximusSkip !== null)(
    "inspeximus 3.23.1, receipts keyed: cutting the chain's own tail with its receipts is reported while the head is out of reach, and passes verify_writes() once the head is cut too (agmi's T2 accepted)",
    async () => {
      const audits: Record<string, string> = {};
      for (const row of ['receipts-keyed', 'receipts-keyed-confighome'] as const) {
        const dir = join(scratch, `tail-${row}`);
        mkdirSync(dir);
        audits[row] = await auditAfterChainTailCut(createInspeximusTarget(root, row), dir);
      }
      expect(audits).toEqual({
        'receipts-keyed': expect.stringMatching(/^write log shrank below the head kept outside the store: 8 < 10 /),
        'receipts-keyed-confighome': 'ok',
      });
    },
    180_000,
  );
});

describe('Python stores that cannot run', () => {
  it('a venv without the store package: exit 1 naming the import error and the install command, nothing written', async () => {
    const fakeRoot = join(scratch, 'no-package');
    mkdirSync(join(fakeRoot, '.cache', 'python', 'venv', 'bin'), { recursive: true });
    // python3 on PATH without inspeximus stands in for a venv whose install failed.
    symlinkSync(
      (await import('node:child_process'))
        .execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' })
        .trim(),
      join(fakeRoot, '.cache', 'python', 'venv', 'bin', 'python'),
    );
    symlinkSync(join(root, 'backends'), join(fakeRoot, 'backends'));
    const system = (await import('node:child_process')).spawnSync(
      join(fakeRoot, '.cache', 'python', 'venv', 'bin', 'python'),
      ['-c', 'import inspeximus'],
    );
    if (system.status === 0)
      return console.log('[python targets] skipped the missing-package case: the system python3 has inspeximus');
    const err: string[] = [];
    const code = await main(
      ['--target', 'inspeximus', '--edits', 'T1,T9', '--json', '-o', join(scratch, 'out')],
      { write: () => true },
      { write: (chunk: string) => err.push(chunk) },
      {},
      { root: fakeRoot },
    );
    // A package that fails to import is a missing prerequisite (issue #28): exit 1 naming it, nothing written.
    expect(code).toBe(1);
    expect(err.join('')).toMatch(
      /target inspeximus cannot run: the Python store could not be loaded from the venv \(ModuleNotFoundError: No module named 'inspeximus'\); reinstall with bash \.ci\/install/,
    );
    expect(existsSync(join(scratch, 'out'))).toBe(false);
  }, 60_000);

  it('no venv at all: exit 1 naming what is missing, before anything runs', async () => {
    const err: string[] = [];
    const code = await main(
      ['--target', 'langgraph-sqlite-py'],
      { write: () => true },
      { write: (chunk: string) => err.push(chunk) },
      {},
      { root: join(scratch, 'empty-root') },
    );
    expect(code).toBe(1);
    expect(err.join('')).toContain(
      'target langgraph-sqlite-py cannot run: no Python venv at .cache/python/venv: run bash .ci/install',
    );
  });
});
