import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFixtureFile } from '../../../../scenarios/frontdoor/fixture.js';
import { authoriseHunt, HuntNotAuthorisedError } from './authorisation.js';
import { frontdoorMain } from './frontdoor-command.js';
import { WRITE_ATTACKS } from './hunt.js';

const run = async (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await frontdoorMain(argv, env, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
};

describe('pnpm frontdoor --hunt', () => {
  it('lands all five write-based attacks on reference, prints attempts and steps, and writes candidate fixtures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hunt-'));
    const { code, out, err } = await run(['--hunt', '--target', 'reference', '-o', dir]);
    expect(code).toBe(0);
    expect(out).toContain('attempts: 5');
    expect(out).toContain('findings: 5');
    expect(out).toContain('authorised: target reference: a library target in this process');
    expect(err.split('\n').filter((line) => line.startsWith('attempt '))).toHaveLength(5);
    expect(out).toMatch(
      /memory_injection@v1: landed at attempt 1 on external with base[\s\S]*1\. add as victim[\s\S]*\[verdict\] → 5 record\(s\)/,
    );
    const candidates = readdirSync(join(dir, 'candidates'));
    expect(candidates).toHaveLength(5);
    for (const name of candidates) {
      const file = parseFixtureFile(readFileSync(join(dir, 'candidates', name), 'utf8'), name);
      expect(file.source).toMatch(/^Found by pnpm frontdoor --hunt --target reference/);
    }
    const report = JSON.parse(readFileSync(join(dir, 'hunt-reference.json'), 'utf8'));
    expect(report.findings.map((f: { attack: string }) => f.attack.split('@')[0])).toEqual(WRITE_ATTACKS);
    expect(report.findings[0].reproduction[0]).toMatch(/^1\. add as victim/);
  });

  it('lands only on agent-laundered on reference-defended, after searching every channel and mutation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hunt-'));
    const { code, out, err } = await run(['--hunt', '--target', 'reference-defended', '-o', dir]);
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'hunt-reference-defended.json'), 'utf8'));
    expect(report.findings.length).toBeGreaterThan(0);
    expect(report.findings.map((f: { channel: string }) => f.channel)).toEqual(
      report.findings.map(() => 'agent-laundered'),
    );
    expect(report.misses.map((m: { attack: string }) => m.attack)).toEqual([
      'retrieval_hijack@v1',
      'indirect_prompt_injection@v1',
    ]);
    // every channel × variant × fixture of the two that hold: 3 × 7 × 5 each
    expect(report.misses.map((m: { attempts: number }) => m.attempts)).toEqual([105, 105]);
    expect(err.split('\n').filter((line) => line.startsWith('attempt ')).length).toBe(report.attempts);
    expect(out).toMatch(/no landing in 105 attempts \(kept out on every attempt\)/);
    // replays of a landing use a fresh instance: a split or a dilution is replayed write for write
    expect(readdirSync(join(dir, 'candidates')).every((name) => name.includes('agent-laundered'))).toBe(true);
  });

  it('is deterministic: the same target yields the same attempts, findings and steps', async () => {
    const reports = [];
    for (const dir of [mkdtempSync(join(tmpdir(), 'hunt-')), mkdtempSync(join(tmpdir(), 'hunt-'))]) {
      await run([
        '--hunt',
        '--target',
        'reference-defended',
        '--attacks',
        'memory_injection,update_poisoning',
        '-o',
        dir,
      ]);
      reports.push(readFileSync(join(dir, 'hunt-reference-defended.json'), 'utf8'));
    }
    expect(reports[1]).toBe(reports[0]);
    expect(JSON.parse(reports[0]!).attempts).toBe(71 + 71);
  });
});

describe('the authorisation gate fails closed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'consent-'));
  const consent = join(dir, 'consent.json');
  writeFileSync(consent, JSON.stringify({ operator: 'Ada (lab owner)', authorised: ['https://mem.lab.example:8443'] }));
  const scope = { target: 'mem0', libraryTargets: ['mem0', 'reference'] };

  it('allows library targets and loopback endpoints', () => {
    expect(
      authoriseHunt({
        ...scope,
        endpoints: ['http://127.0.0.1:8080/v1', 'http://localhost:1/v1', 'http://[::1]:9/v1'],
      }),
    ).toHaveLength(4);
  });

  it('refuses a network endpoint or target without a consent file naming it', () => {
    expect(() => authoriseHunt({ ...scope, endpoints: ['https://api.openai.com/v1'] })).toThrow(HuntNotAuthorisedError);
    expect(() => authoriseHunt({ ...scope, endpoints: ['https://api.openai.com/v1'], consentFile: consent })).toThrow(
      /api\.openai\.com.*no consent file names it/,
    );
    expect(() =>
      authoriseHunt({ ...scope, target: 'https://mem.lab.example:9999', endpoints: [], consentFile: consent }),
    ).toThrow(/needs an operator consent file/);
    expect(() => authoriseHunt({ ...scope, target: 'not-a-target', endpoints: [] })).toThrow(
      /neither a library target/,
    );
    expect(() => authoriseHunt({ ...scope, endpoints: ['10.0.0.5:80'] })).toThrow(HuntNotAuthorisedError);
  });

  it('allows exactly what the consent file names, and refuses an unreadable or malformed one', () => {
    expect(
      authoriseHunt({
        ...scope,
        target: 'https://mem.lab.example:8443/path',
        endpoints: ['https://mem.lab.example:8443/v1'],
        consentFile: consent,
      }).join('\n'),
    ).toContain('named in the consent file of Ada (lab owner)');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ authorised: ['https://mem.lab.example:8443'] }));
    expect(() => authoriseHunt({ ...scope, endpoints: ['https://mem.lab.example:8443'], consentFile: bad })).toThrow(
      /bad\.json is not/,
    );
    expect(() =>
      authoriseHunt({ ...scope, endpoints: ['https://mem.lab.example:8443'], consentFile: join(dir, 'missing.json') }),
    ).toThrow(/cannot be read/);
  });

  it('runs before anything else: a refused hunt touches no endpoint and writes nothing', async () => {
    const out = mkdtempSync(join(tmpdir(), 'hunt-'));
    const refused = await run(
      ['--hunt', '--target', 'mem0', '--embedder', 'openai', '--embedding-model', 'm', '-o', out],
      { STALEBENCH_EMBEDDINGS_BASE_URL: 'https://embeddings.example.net/v1' },
    );
    expect(refused.code).toBe(1);
    expect(refused.err).toBe(
      'error: hunt not authorised: endpoint https://embeddings.example.net is on the network and no consent file names it (--consent <file>)',
    );
    expect(readdirSync(out)).toEqual([]);
    const url = await run(['--hunt', '--target', 'https://mem.lab.example:8443', '--consent', consent, '-o', out]);
    expect(url.code).toBe(1);
    expect(url.err).toMatch(/authorised, but live HTTP targets are not built yet/);
  });
});
