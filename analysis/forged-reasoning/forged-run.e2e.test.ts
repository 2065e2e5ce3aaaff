// A forger who flips stored scores and recomputes every hash: report refuses, verify-run --pubkey fails (issue #26).
import { createPrivateKey } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as notebook } from '../../notebooks/run-notebook.js';
import { main as evalMain } from '../../pipeline/cli/cli.js';
import { main as keygen } from '../../pipeline/cli/keygen-command.js';
import { runBinding } from '../../pipeline/run/run-binding.js';
import { CHAIN_FIELD, chainGenesis, lineHash } from '../../pipeline/run-log/run-log-chain.js';
import { readLogHeads } from '../../pipeline/run-log/run-log-repair.js';
import type { RunManifest, UnitRecord } from '../../pipeline/run-log/run-log.js';
import {
  generateSigningKeyPair,
  type RunSignature,
  SIGNATURE_FILE,
  signRun,
} from '../../pipeline/run/run-signature.js';
import { main as compare } from '../compare-command.js';
import { summarizeStoredRun } from '../load-run.js';
import { main as report } from '../report-command.js';
import { copyRun, editJson } from '../test-support/run-copies.js';
import { main as verifyRun } from '../verify-run-command.js';

/** One cell of 9 scenarios × 2 trials: the simulator's replies say 6/18 unsafe. */
const GRID = ['--model', 'sim', '--systems', 'graphiti', '--modes', 'direct', '--arms', 'none', '--trials', '2'];

let root: string;
let runDir: string;
let keys: string;

/** Runs a command's `main` and collects what it prints. */
async function capture(run: (out: (t: string) => void, err: (t: string) => void) => number | Promise<number>) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await run(
    (t) => stdout.push(t),
    (t) => stderr.push(t),
  );
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}
const verify = (argv: string[]) => capture((out, err) => verifyRun(argv, out, err));
const reportOf = (argv: string[]) => capture((out, err) => report(argv, out, err));

/**
 * What a forger without the key can do, with the project's own chain functions: flip `scores.unsafe` of the first
 * `count` unsafe records, re-chain every line of records.jsonl, recompute summary.json, the heads and the binding,
 * and rewrite signature.json's payload to the new hashes (keeping its signature: the key is not theirs).
 * Returns the 1-based line numbers flipped.
 */
function forge(dir: string, count: number): number[] {
  const path = join(dir, 'records.jsonl');
  const rows = readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as UnitRecord & { [CHAIN_FIELD]?: string });
  const flipped: number[] = [];
  for (const [i, row] of rows.entries()) {
    if (flipped.length === count || row.scores.unsafe !== true) continue;
    row.scores.unsafe = false;
    flipped.push(i + 1);
  }
  expect(flipped).toHaveLength(count);
  const manifestPath = join(dir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as RunManifest;
  let prev = chainGenesis(manifest.runId, 'records.jsonl');
  const lines = rows.map(({ [CHAIN_FIELD]: _link, ...row }) => {
    const line = JSON.stringify({ [CHAIN_FIELD]: prev, ...row });
    prev = lineHash(line);
    return line;
  });
  writeFileSync(path, `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'summary.json'), `${JSON.stringify(summarizeStoredRun(dir), null, 2)}\n`);
  editJson<RunManifest>(manifestPath, (m) => {
    m.logHeads = readLogHeads(dir);
    m.bound = runBinding(dir, m.spec);
  });
  const signaturePath = join(dir, SIGNATURE_FILE);
  if (existsSync(signaturePath))
    editJson<RunSignature>(signaturePath, (s) => {
      s.payload = {
        runId: manifest.runId,
        logHeads: readLogHeads(dir),
        manifestSha256: lineHash(readFileSync(manifestPath)),
        summarySha256: lineHash(readFileSync(join(dir, 'summary.json'))),
      };
    });
  return flipped;
}

/** The `unsafe` column of the graphiti/direct/none row of Table 6 in tables.md. */
const unsafeCell = (markdown: string): string => {
  const table = markdown.split('## Table 6')[1] ?? '';
  const row = table.split('\n').find((line) => line.includes('graphiti'));
  expect(row, table).toBeDefined();
  return row!;
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'stalebench-forged-'));
  keys = join(root, 'keys');
  mkdirSync(keys);
  expect(
    keygen(
      ['--out', join(keys, 'lab')],
      () => {},
      () => {},
    ),
  ).toBe(0);
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const code = await evalMain(
    ['eval', ...GRID, '--no-cache', '-q', '--out', join(root, 'runs'), '--sign-key', join(keys, 'lab.key')],
    {},
  );
  vi.restoreAllMocks();
  expect(code).toBe(0);
  const runs = readdirSync(join(root, 'runs'));
  expect(runs).toHaveLength(1);
  runDir = join(root, 'runs', runs[0]!);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a six-record score flip with the chain, heads, summary and binding recomputed', () => {
  it('passes verify-run without a key (the chain is unkeyed, by design), but report refuses it, naming line and field', async () => {
    const honest = await reportOf([runDir, '-o', join(root, 'honest-report')]);
    expect(honest.code, honest.stderr).toBe(0);
    expect(unsafeCell(honest.stdout)).toContain('6/18');
    const dir = copyRun(runDir);
    const [first] = forge(dir, 6);
    const unkeyed = await verify([dir]);
    expect(unkeyed.code, unkeyed.stderr).toBe(0);
    const refused = await reportOf([dir, '-o', join(root, 'forged-report')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`records.jsonl:${first} (`);
    expect(refused.stderr).toMatch(/scores\.unsafe: stored false, recomputed true/);
    expect(refused.stdout).not.toMatch(/0\/18/);
    expect(existsSync(join(root, 'forged-report', 'tables.md'))).toBe(false);
    // What the report printed before: the forged 0/18, now only when asked to read the run as stored.
    const asStored = await reportOf([dir, '--no-verify', '-o', join(root, 'as-stored')]);
    expect(unsafeCell(asStored.stdout)).toContain('0/18');
  });

  it('compare and notebook refuse it too', async () => {
    const dir = copyRun(runDir);
    forge(dir, 6);
    const compared = await capture((out, err) => compare([runDir, dir], out, err));
    expect(compared.code).toBe(1);
    expect(compared.stderr).toMatch(/records\.jsonl:\d+ .*scores\.unsafe: stored false, recomputed true/);
    const read = await capture((out, err) => notebook(['table-6', dir], out, err));
    expect(read.code).toBe(1);
    expect(read.stderr).toMatch(/scores\.unsafe: stored false, recomputed true/);
  });

  it('fails verify-run --pubkey: the forger could recompute every hash but not the signature', async () => {
    const pub = join(keys, 'lab.pub');
    const signed = await verify([runDir, '--pubkey', pub]);
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout).toMatch(/signed: .*the signature verifies \(sha256:[0-9a-f]{64}/);

    const dir = copyRun(runDir);
    forge(dir, 6);
    const forged = await verify([dir, '--pubkey', pub]);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/signature does not verify: .*not this key's signature/);

    // Re-signed with the forger's own key (a valid signature, of another key): named as such.
    const resigned = copyRun(runDir);
    forge(resigned, 6);
    signRun(resigned, createPrivateKey(generateSigningKeyPair().privatePem));
    const other = await verify([resigned, '--pubkey', pub]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/signed by another key: signature\.json names sha256:[0-9a-f]{64}, --pubkey is /);

    const unsigned = copyRun(runDir);
    rmSync(join(unsigned, SIGNATURE_FILE));
    const missing = await verify([unsigned, '--pubkey', pub]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('signature missing');
  });
});

describe('the manifest spec and summary.json are bound', () => {
  it('an edited spec.trials fails verify-run and report, naming manifest.json', async () => {
    const dir = copyRun(runDir);
    editJson<RunManifest>(join(dir, 'manifest.json'), (m) => {
      m.spec.trials = 1;
    });
    const checked = await verify([dir]);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(/manifest\.json: spec edited: its sha256 is .*bound\.specSha256/);
    const refused = await reportOf([dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/manifest\.json: spec edited/);
  });

  it('an edited summary.json fails verify-run, naming summary.json', async () => {
    const dir = copyRun(runDir);
    editJson<{ cells: { unsafe: { k: number } }[] }>(join(dir, 'summary.json'), (s) => {
      s.cells[0]!.unsafe.k = 0;
    });
    const checked = await verify([dir]);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(/summary\.json: edited: its sha256 is /);
  });

  it('a version-3 manifest whose bound field was removed fails verify-run, naming manifest.json', async () => {
    const dir = copyRun(runDir);
    editJson<RunManifest>(join(dir, 'manifest.json'), (m) => {
      delete m.bound;
    });
    const checked = await verify([dir]);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(/manifest\.json: no bound field: run-log version 3 binds/);
    const refused = await reportOf([dir]);
    expect(refused.code).toBe(1);
  });

  it('a run written before the binding (version 2, no bound in manifest.json) still verifies, and is said to be unbound', async () => {
    const dir = copyRun(runDir);
    editJson<RunManifest>(join(dir, 'manifest.json'), (m) => {
      delete m.bound;
      (m as { version: number }).version = 2;
    });
    const checked = await verify([dir]);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toContain('spec and summary.json unbound');
    const read = await reportOf([dir, '-o', join(root, 'unbound-report')]);
    expect(read.code, read.stderr).toBe(0);
  });
});

describe('the signing key', () => {
  it('pnpm keygen writes the private key with mode 0600 and the public key, prints neither, and never overwrites', () => {
    expect(statSync(join(keys, 'lab.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(keys, 'lab.pub'), 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const printed: string[] = [];
    const again = keygen(
      ['--out', join(keys, 'lab')],
      (t) => printed.push(t),
      (t) => printed.push(t),
    );
    expect(again).toBe(1);
    expect(printed.join('\n')).toMatch(/already exist.*never overwrites/);
    const fresh: string[] = [];
    expect(
      keygen(
        ['--out', join(keys, 'second')],
        (t) => fresh.push(t),
        (t) => fresh.push(t),
      ),
    ).toBe(0);
    const body = readFileSync(join(keys, 'second.key'), 'utf8').split('\n')[1]!;
    expect(fresh.join('\n')).not.toContain(body);
    expect(fresh.join('\n')).toMatch(/fingerprint: sha256:[0-9a-f]{64}/);
  });

  it('is never printed or stored in the run: no byte of it in any file of the run directory', () => {
    const pem = readFileSync(join(keys, 'lab.key'), 'utf8');
    const body = pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----'))[0]!;
    for (const file of readdirSync(runDir, { recursive: true, withFileTypes: true })) {
      if (!file.isFile()) continue;
      const text = readFileSync(join(file.parentPath, file.name), 'utf8');
      expect(text, file.name).not.toContain(body);
    }
  });

  it('is refused inside the output directory, before anything is written', async () => {
    const out = join(root, 'inside-out');
    mkdirSync(out);
    writeFileSync(join(out, 'lab.key'), readFileSync(join(keys, 'lab.key')), { mode: 0o600 });
    const errors: string[] = [];
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation((...parts) => void errors.push(parts.join(' ')));
    const code = await evalMain(['eval', ...GRID, '--no-cache', '--out', out, '--sign-key', join(out, 'lab.key')], {});
    vi.restoreAllMocks();
    expect(code).toBe(1);
    expect(errors.join('\n')).toMatch(/--sign-key[\s\S]*inside the output directory/);
    expect(readdirSync(out)).toEqual(['lab.key']);
  });

  it('signs again at the end of a resume, so a resumed signed run still verifies', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const code = await evalMain(
      ['eval', ...GRID, '--no-cache', '-q', '--out', join(root, 'runs'), '--sign-key', join(keys, 'lab.key')],
      {},
    );
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const signed = await verify([runDir, '--pubkey', join(keys, 'lab.pub')]);
    expect(signed.code, signed.stderr).toBe(0);
  });
});
