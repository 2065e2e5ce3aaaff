// Acceptance of issue #14 items 3–4 and #19 item 2 on the offline grid: `--tamper unrevoke` revives the revoked policy
// under the store filter and the guard; the revocation ledger refuses it; on status-less stores the ledger gives the
// guard every revocation the application performed, side by side with the guard alone.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Summary } from '../analysis/grid/summarize.js';
import { specFromArgs } from './cli/cli.js';
import { readJsonLines } from './run-log/json-files.js';
import type { ProbeRecord, UnitRecord } from './run-log/run-log.js';
import { runEvaluation } from './run/run.js';

async function run(args: string[]) {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-tamper-ledger-'));
  const spec = specFromArgs(['--model', 'sim', '--trials', '1', '--no-cache', '-q', '--out', out, ...args], {});
  const { runDir } = await runEvaluation(spec, { apiKey: undefined });
  const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
  const probes = readJsonLines<ProbeRecord>(join(runDir, 'setup.jsonl')).rows;
  const records = readJsonLines<UnitRecord>(join(runDir, 'records.jsonl')).rows;
  const inContext = (system: string, arm: string) =>
    summary.cells.find((cell) => cell.system === system && cell.arm === arm)?.contextExposure;
  return { summary, probes, records, inContext };
}

describe('pnpm eval --tamper unrevoke', () => {
  it('revives the revoked policy in context under store-filter and guard; the ledger arms refuse it', async () => {
    const arms = 'store-filter,guard,ledger-filter,ledger-guard';
    const tampered = await run([
      '--systems',
      'graphiti,mem0-exp',
      '--modes',
      'direct',
      '--arms',
      arms,
      '--tamper',
      'unrevoke',
    ]);
    const untouched = await run(['--systems', 'graphiti,mem0-exp', '--modes', 'direct', '--arms', arms]);
    for (const system of ['graphiti', 'mem0-exp']) {
      // Without the edit the store filter keeps v1 out; after it, every scenario's filtered read serves it again.
      expect(untouched.inContext(system, 'store-filter')).toEqual({ k: 0, n: 9 });
      expect(tampered.inContext(system, 'store-filter')).toEqual({ k: 9, n: 9 });
      expect(untouched.inContext(system, 'guard')).toEqual({ k: 0, n: 9 });
      expect(tampered.inContext(system, 'guard')?.k).toBeGreaterThan(0);
      for (const arm of ['ledger-filter', 'ledger-guard'])
        expect(tampered.inContext(system, arm)).toEqual({ k: 0, n: 9 });
    }
    expect(tampered.probes.map((probe) => probe.tamper?.records)).toEqual(Array(18).fill(1));
    const refused = tampered.records.find((r) => r.key.system === 'graphiti' && r.key.arm === 'ledger-filter');
    expect(refused?.context.screens?.['revocation-ledger']?.withheld[0]?.reason).toMatch(
      /^revocation ledger: status not bound: the store serves it as current, the ledger binds its supersession at /,
    );
  }, 120_000);

  it('un-revokes Zep CE in its sidecar graph, and refuses by name a system that keeps no status', async () => {
    const { probes } = await run([
      '--systems',
      'zep-ce,langmem',
      '--modes',
      'natural',
      '--arms',
      'none',
      '--tamper',
      'unrevoke',
    ]);
    const zep = probes.filter((probe) => probe.system === 'zep-ce');
    expect(zep.every((probe) => probe.status === 'ok' && probe.tamper?.edit === 'unrevoke')).toBe(true);
    expect(zep.reduce((sum, probe) => sum + (probe.tamper?.records ?? 0), 0)).toBeGreaterThan(0);
    // Exposure still counts a revived edge as the revoked policy (its status fields are gone from the graph). 7 of 9
    // since sim-extractor-v3 also supersedes instruction_injection's v1 (issue #29 item 4; 6 before).
    expect(zep.filter((probe) => probe.exposure?.exposed).length).toBe(7);
    const langmem = new Set(
      probes.filter((probe) => probe.system === 'langmem').map((p) => `${p.status}: ${p.reason}`),
    );
    expect(langmem).toEqual(
      new Set([
        'not-applicable: langmem cannot take --tamper unrevoke: it keeps no revocation status to clear (status fields: none)',
      ]),
    );
    await expect(run(['--experiment', 'writeback', '--tamper', 'unrevoke'])).rejects.toThrow(
      '--tamper: applies to the grid only',
    );
    expect(() => specFromArgs(['--model', 'sim', '--tamper', 'revive'], {})).toThrow('tamper');
  }, 60_000);
});

describe('the revocation ledger on stores that return no status (natural mode)', () => {
  it('guard recall 100 % and current withheld 0 with it; the guard alone beside it, from one run', async () => {
    const { summary, inContext } = await run([
      '--systems',
      'zep-ce,langmem,cognee',
      '--modes',
      'natural',
      '--arms',
      'guard,ledger-guard',
    ]);
    const rows = (summary.ledgerMetrics ?? []).map((m) =>
      [m.system, m.defence, `${m.revokedCaught}/${m.revokedPresent}`, `${m.currentWithheld}/${m.currentTotal}`].join(
        ' ',
      ),
    );
    expect(rows).toEqual([
      'zep-ce guard 5/15 0/13',
      'zep-ce guard + revocation ledger 15/15 0/13',
      // 13 revoked before sim-extractor-v3: langmem's manager now rewrites instruction_injection's v1 in place.
      'langmem guard 6/12 6/33',
      'langmem guard + revocation ledger 12/12 0/33',
      'cognee guard 0/9 0/9',
      'cognee guard + revocation ledger 9/9 0/9',
    ]);
    for (const system of ['zep-ce', 'langmem', 'cognee'])
      expect(inContext(system, 'ledger-guard')).toEqual({ k: 0, n: 9 });
  }, 120_000);

  it('records no ledger when no defence of the run consults it (the grid stays as it was)', async () => {
    const { summary, probes } = await run(['--systems', 'langmem', '--modes', 'natural', '--arms', 'guard']);
    expect(summary.ledgerMetrics).toBeUndefined();
    expect(probes.every((probe) => probe.ledger === undefined)).toBe(true);
  }, 60_000);
});
