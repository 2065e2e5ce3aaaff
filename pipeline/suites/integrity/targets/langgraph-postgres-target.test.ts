import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../harness/integrity-command.js';
import { findPostgresBin } from '../../../services/postgres-cluster.js';
import { createLanggraphPostgresTarget } from './langgraph-postgres-target.js';

const scratch = mkdtempSync(join(tmpdir(), 'langgraph-postgres-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('langgraph-postgres without PostgreSQL', () => {
  it('names the missing binaries, and pnpm integrity exits 1 before running or writing anything', async () => {
    const env = { STALEBENCH_POSTGRES_BIN: join(scratch, 'no-postgres-here') };
    const missing = `STALEBENCH_POSTGRES_BIN=${env.STALEBENCH_POSTGRES_BIN} does not hold initdb, pg_ctl, postgres, psql`;
    expect(await createLanggraphPostgresTarget(scratch, env).unavailable?.()).toEqual({
      reason: missing,
      missingPrerequisite: true,
    });
    const err: string[] = [];
    const code = await main(
      ['--target', 'langgraph-postgres'],
      { write: () => true },
      { write: (chunk: string) => err.push(chunk) },
      env,
      {
        root: scratch,
      },
    );
    expect(code).toBe(1);
    expect(err.join('')).toBe(`pnpm integrity: target langgraph-postgres cannot run: ${missing}\n`);
    expect(readdirSync(scratch)).toEqual([]); // no run directory, no report
  });
});

describe('langgraph-postgres on a server a URI names', () => {
  const bin = findPostgresBin(process.env);
  it.skipIf('missing' in bin)(
    'never prints or refuses with the password of STALEBENCH_POSTGRES_URI (port 1: nobody answers)',
    async () => {
      const env = { ...process.env, STALEBENCH_POSTGRES_URI: 'postgresql://bench:TopS3cret-pw@127.0.0.1:1/agmi' };
      const refused = await createLanggraphPostgresTarget(scratch, env).unavailable?.();
      expect(refused?.reason).toContain(
        'STALEBENCH_POSTGRES_URI=postgresql://bench:[redacted]@127.0.0.1:1/agmi did not answer',
      );
      expect(refused?.reason).not.toContain('TopS3cret');
    },
  );
  if ('missing' in bin) console.log(`skipped the URI password test: ${bin.missing}`);
});
