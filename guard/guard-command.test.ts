// `pnpm guard`: array and JSON-lines modes, options, environment, errors; in-process and one real spawn.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from './guard-command.js';

const NOW = '2026-03-01T12:00:00Z';
const SUMMARY_1_OF_2 =
  '1 of 2 retrieved facts withheld as superseded or revoked; they remain in the store and are listed in `withheld`.';
const VECTOR_A = [
  { fact: 'All TOR logins must be blocked.', expired_at: '2025-03-01T12:00:00+00:00' },
  { fact: 'TOR logins with anomalies are monitored, not blocked.' },
];
const VECTOR_E = [
  { fact: 'A single operator may execute transfers up to $1,000,000.', created_at: '2025-03-01T12:00:00+00:00' },
  { fact: 'Single-operator transfers are capped at $10,000.', created_at: NOW },
];

async function run(argv: string[], input: string | Buffer[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const stdin = Readable.from(typeof input === 'string' ? [input] : input);
  const code = await main(
    argv,
    stdin,
    { write: (chunk) => out.push(chunk) },
    { write: (chunk) => err.push(chunk) },
    env,
  );
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('array mode', () => {
  it('writes kept {index, record} and withheld {index, text, reason, stage}', async () => {
    const { code, stdout, stderr } = await run(['--now', NOW], JSON.stringify(VECTOR_A));
    expect([code, stderr]).toEqual([0, '']);
    expect(JSON.parse(stdout)).toEqual({
      kept: [{ index: 1, record: VECTOR_A[1] }],
      withheld: [
        { index: 0, text: 'All TOR logins must be blocked.', reason: 'backend marked expired_at', stage: 'explicit' },
      ],
      notes: [SUMMARY_1_OF_2],
    });
  });

  it('conflicts carry superseded_by; strings and other JSON values are records too', async () => {
    const { stdout } = await run(['--now', NOW], JSON.stringify([...VECTOR_E, 'plain text', 7, null]));
    const result = JSON.parse(stdout);
    expect(result.withheld).toEqual([
      {
        index: 0,
        text: VECTOR_E[0]?.fact,
        reason: "superseded: conflicting quantities ['$1,000,000'] vs ['$10,000']",
        stage: 'conflict',
        superseded_by: VECTOR_E[1]?.fact,
      },
    ]);
    expect(result.kept.map((item: { index: number }) => item.index)).toEqual([1, 2, 3, 4]);
    expect(result.kept.slice(2)).toEqual([
      { index: 3, record: 7 },
      { index: 4, record: null },
    ]);
  });

  it('decodes UTF-8 split across chunks and ignores a byte-order mark', async () => {
    const bytes = Buffer.from(`\uFEFF["café"]`);
    const { code, stdout } = await run([], [bytes.subarray(0, 9), bytes.subarray(9)]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).kept).toEqual([{ index: 0, record: 'café' }]);
  });
});

describe('--jsonl', () => {
  it('writes one compact result per non-blank input line', async () => {
    const input = `${JSON.stringify(VECTOR_A)}\n\n${JSON.stringify(VECTOR_E)}\r\n[]\n`;
    const { code, stdout } = await run(['--jsonl', '--now', NOW], input);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0] ?? '').notes).toEqual([SUMMARY_1_OF_2]);
    expect(JSON.parse(lines[1] ?? '').withheld[0].stage).toBe('conflict');
    expect(lines[2]).toBe('{"kept":[],"withheld":[],"notes":[]}');
  });

  it('reports every bad line with its number and column, and writes nothing', async () => {
    const { code, stdout, stderr } = await run(['--jsonl'], '["ok"]\n[{"a": }]\n{"records": []}\n[1, 2,]\n');
    expect([code, stdout]).toEqual([1, '']);
    expect(stderr).toContain('line 2, column 8: invalid JSON: Expecting value');
    expect(stderr).toContain('line 3: expected a JSON array of records, got an object');
    expect(stderr).toContain('line 4, column 7: invalid JSON: Expecting value');
  });
});

describe('errors and options', () => {
  it('bad JSON names the line and column; non-arrays and empty input are rejected', async () => {
    const bad = await run([], '[\n  {"fact": "x",\n   "y": }\n]');
    expect([bad.code, bad.stdout]).toEqual([1, '']);
    expect(bad.stderr).toBe('guard: invalid stdin (JSON):\n  ✖ line 3, column 9: invalid JSON: Expecting value\n');
    expect((await run([], '{"fact": "x"}')).stderr).toContain('expected a JSON array of records, got an object');
    expect((await run([], '')).stderr).toContain('line 1, column 1: invalid JSON: Expecting value');
  });

  it("bad JSON is located where CPython's json.loads locates it (CPython 3.11 messages)", async () => {
    // json.loads('["abc') → Unterminated string starting at: line 1 column 2 (the old scanner said column 6).
    expect((await run([], '["abc')).stderr).toContain(
      'line 1, column 2: invalid JSON: Unterminated string starting at',
    );
    // json.loads('["a\\qb"]') → Invalid \escape: line 1 column 4 (the old scanner pointed at the q, column 5).
    expect((await run([], '["a\\qb"]')).stderr).toContain('line 1, column 4: invalid JSON: Invalid \\escape');
    // json.loads('[NaN]') accepts NaN; JSON does not, so the guard rejects it where the value starts.
    expect((await run([], '[NaN]')).stderr).toContain('line 1, column 2: invalid JSON: Expecting value');
  });

  it('--no-trust-explicit, --max-withheld-ratio and --no-require-opposition change the verdict', async () => {
    expect(
      JSON.parse((await run(['--no-trust-explicit', '--now', NOW], JSON.stringify(VECTOR_A))).stdout).withheld,
    ).toEqual([]);
    expect(
      JSON.parse((await run(['--max-withheld-ratio', '0', '--now', NOW], JSON.stringify(VECTOR_E))).stdout).withheld,
    ).toEqual([]);
    const paraphrases = [
      { fact: 'Logs are kept for a year.', created_at: '2025-01-01' },
      { fact: 'Logs are kept for one full year.', created_at: '2026-01-01' },
    ];
    const loose = JSON.parse(
      (await run(['--no-require-opposition', '--subject-overlap', '0.5', '--now', NOW], JSON.stringify(paraphrases)))
        .stdout,
    );
    expect(loose.withheld[0].reason).toBe('superseded: same subject (overlap 1.00)');
  });

  it('reads GUARD_* variables; flags override them', async () => {
    const off = await run(['--now', NOW], JSON.stringify(VECTOR_A), { GUARD_TRUST_EXPLICIT: 'false' });
    expect(JSON.parse(off.stdout).withheld).toEqual([]);
    const capped = await run(['--now', NOW], JSON.stringify(VECTOR_E), { GUARD_MAX_WITHHELD_RATIO: '0' });
    expect(JSON.parse(capped.stdout).withheld).toEqual([]);
    const flagged = await run(['--now', NOW, '--max-withheld-ratio', '0.6'], JSON.stringify(VECTOR_E), {
      GUARD_MAX_WITHHELD_RATIO: '0',
    });
    expect(JSON.parse(flagged.stdout).withheld).toHaveLength(1);
    expect((await run([], '[]', { GUARD_SUBJECT_OVERLAP: 'high' })).stderr).toContain(
      'GUARD_SUBJECT_OVERLAP: not a number: "high"',
    );
  });

  it('rejects bad option values and unknown options; --help prints usage', async () => {
    const bad = await run(['--subject-overlap', 'abc', '--now', 'tomorrow'], '[]');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--subject-overlap: not a number: "abc"');
    expect(bad.stderr).toContain('--now: not an ISO-8601 date or datetime: "tomorrow"');
    const unknown = await run(['--bogus'], '[]');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Unknown option '--bogus'[\s\S]*usage: pnpm guard/);
    const help = await run(['--help'], '');
    expect([help.code, help.stdout.startsWith('usage: pnpm guard')]).toEqual([0, true]);
  });
});

describe('as a process', () => {
  it('node --import tsx guard/guard-command.ts reads stdin and exits 0 / 1', async () => {
    const spawnGuard = (input: string) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GUARD_')));
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', join(import.meta.dirname, 'guard-command.ts'), '--now', NOW],
          { env },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
        child.stdin.end(input);
      });
    const ok = await spawnGuard(JSON.stringify(VECTOR_E));
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    expect(JSON.parse(ok.stdout).kept).toEqual([{ index: 1, record: VECTOR_E[1] }]);
    const bad = await spawnGuard('[1,');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('line 1, column 4: invalid JSON: Expecting value');
  }, 30_000);
});
