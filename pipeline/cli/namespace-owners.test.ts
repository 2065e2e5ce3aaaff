import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nonceOwners, planOrphans, runDirectoriesUnder } from './namespace-owners.js';
import { acquireRunLock, lockPathOf } from '../run/run-lock.js';

const namespace = (nonce: string, name = 'g') => ({ engine: 'neo4j', name: `sb${nonce}_run__${name}`, nonce });

describe('orphan planning', () => {
  it('removes the namespaces of ended, killed and lock-only nonces, keeps a running nonce and unknown ones', async () => {
    const root = mkdtempSync(join(tmpdir(), 'stalebench-owners-'));
    const dir = (name: string) => {
      mkdirSync(join(root, name));
      return join(root, name);
    };
    const invocation = (nonce: string, ended?: string) => ({
      nonce,
      pid: 1,
      host: hostname(),
      startedAt: '2026-01-01T00:00:00.000Z',
      ...(ended ? { ended: { at: 'x', status: ended } } : {}),
    });
    writeFileSync(
      join(dir('finished'), 'manifest.json'),
      JSON.stringify({ invocations: [invocation('00000001', 'success'), invocation('00000002')] }),
    );
    const running = dir('running');
    writeFileSync(
      join(running, 'manifest.json'),
      JSON.stringify({ invocations: [invocation('00000003', 'cancelled'), invocation('00000004')] }),
    );
    const lock = await acquireRunLock(running, { nonce: '00000004' });
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(
      lockPathOf(dir('lock-only')),
      JSON.stringify({ pid: dead, host: hostname(), nonce: '00000005', startedAt: 'then', processStart: null }),
    );
    dir('not-a-run');
    try {
      expect(
        runDirectoriesUnder([root, join(root, 'missing')])
          .map((path) => path.slice(root.length + 1))
          .sort(),
      ).toEqual(['finished', 'lock-only', 'running']);
      const plan = planOrphans(
        ['00000001', '00000002', '00000003', '00000004', '00000005', '0000000a'].map((n) => namespace(n)),
        nonceOwners(runDirectoriesUnder([root])),
      );
      expect(plan.remove.map((entry) => [entry.nonce, entry.reason.replace(root, '<root>')])).toEqual([
        [
          '00000001',
          `run <root>/finished, pid 1 on host ${hostname()} (started 2026-01-01T00:00:00.000Z), ended (success)`,
        ],
        [
          '00000002',
          'run <root>/finished, pid 1 on host ' +
            hostname() +
            ' (started 2026-01-01T00:00:00.000Z), killed (it never recorded an end)',
        ],
        [
          '00000003',
          `run <root>/running, pid 1 on host ${hostname()} (started 2026-01-01T00:00:00.000Z), ended (cancelled)`,
        ],
        [
          '00000005',
          `run <root>/lock-only, pid ${dead} on host ${hostname()} (started then, nonce 00000005), killed (it never recorded an end)`,
        ],
      ]);
      expect(plan.running.map((entry) => entry.nonce)).toEqual(['00000004']);
      expect(plan.unknown.map((entry) => entry.nonce)).toEqual(['0000000a']);
    } finally {
      lock.release();
    }
    expect(nonceOwners(runDirectoriesUnder([root])).get('00000004')?.state).toBe('gone');
  });
});
