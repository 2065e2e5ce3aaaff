import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../harness/integrity-command.js';
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
