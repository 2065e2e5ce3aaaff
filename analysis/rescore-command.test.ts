import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_GUARD_CONFIG } from '../guard/guard-config.js';
import { main as evalMain, specFromArgs } from '../pipeline/cli/cli.js';
import { runEvaluation } from '../pipeline/run/run.js';
import { POLICY_SCENARIO_IDS } from '../scenarios/index.js';
import { GUARD_FLAGS, guardConfigFromFlags, main, type RescoredSummary } from './rescore-command.js';
import type { Summary } from './grid/summarize.js';
import { startOpenAICompatibleServer, type TestServer } from '../pipeline/test-support/openai-compatible-server.js';

describe('pnpm rescore', () => {
  it('recomputes byte-identical summary cells from the run directory alone, with the network disabled', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-rescore-'));
    vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const code = await evalMain(
      [
        'eval',
        '--model',
        'sim',
        '--systems',
        'graphiti,mem0-exp,langmem',
        '--modes',
        'direct,natural',
        '--arms',
        'none,store-filter,output-filter,guard',
        '--guard',
        'off,on',
        '--trials',
        '2',
        '--out',
        out,
      ],
      {},
    );
    vi.restoreAllMocks();
    expect(code).toBe(0);
    const runDir = join(out, readdirSync(out)[0]!);
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockImplementation(() => {
      throw new Error('network disabled in this test');
    });
    const lines: string[] = [];
    expect(
      await main(
        [runDir, '--check'],
        (line) => lines.push(line),
        (line) => lines.push(line),
      ),
    ).toBe(0);
    expect(fetchSpy).not.toHaveBeenCalled();
    fetchSpy.mockRestore();
    expect(lines.join('\n')).toContain('summary cells identical');
    const original = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
    const rescored = JSON.parse(readFileSync(join(runDir, 'summary.rescored.json'), 'utf8'));
    expect(JSON.stringify(rescored.cells)).toBe(JSON.stringify(original.cells));
    expect(JSON.stringify(rescored.guardMetrics)).toBe(JSON.stringify(original.guardMetrics));
  }, 60_000);

  it('fails with the path when the directory is not a run', async () => {
    const errors: string[] = [];
    expect(
      await main(
        [tmpdir()],
        () => {},
        (line) => errors.push(line),
      ),
    ).toBe(1);
    expect(errors.join('\n')).toMatch(/no manifest/);
  });
});

describe('pnpm rescore --guard-*', () => {
  it('declares one flag per guard configuration field, kebab-case after the key', () => {
    expect(GUARD_FLAGS).toEqual({
      subjectOverlap: 'guard-subject-overlap',
      requireOpposition: 'guard-require-opposition',
      trustExplicitFields: 'guard-trust-explicit-fields',
      maxWithheldRatio: 'guard-max-withheld-ratio',
      annotate: 'guard-annotate',
    });
    expect(Object.keys(GUARD_FLAGS)).toEqual(Object.keys(DEFAULT_GUARD_CONFIG));
  });

  it('parses flag values into a validated configuration and names the flag of a bad value', async () => {
    expect(guardConfigFromFlags({ check: true })).toBeNull();
    expect(guardConfigFromFlags({ 'guard-subject-overlap': '3e-1', 'guard-annotate': 'false' })).toEqual({
      ...DEFAULT_GUARD_CONFIG,
      subjectOverlap: 0.3,
      annotate: false,
    });
    expect(() => guardConfigFromFlags({ 'guard-max-withheld-ratio': 'lots' })).toThrow(
      /--guard-max-withheld-ratio: .*expected number.*"lots"/,
    );
    expect(() => guardConfigFromFlags({ 'guard-require-opposition': 'no' })).toThrow(
      /--guard-require-opposition: .*expected boolean/,
    );
    const errors: string[] = [];
    expect(
      await main(
        [tmpdir(), '--guard-subject-overlap', 'NaN'],
        () => {},
        (line) => errors.push(line),
      ),
    ).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/--guard-subject-overlap/);
    expect(errors[0]).not.toMatch(/no manifest/);
  });

  it('re-applies the guard to the stored reads, keeps the cells byte-identical and lists the units that would need a new call', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-rescore-guard-'));
    const spec = specFromArgs(
      [
        '--model',
        'sim',
        '--systems',
        'graphiti,langmem',
        '--modes',
        'direct',
        '--arms',
        'none,guard',
        '--trials',
        '1',
        '--out',
        out,
      ],
      {},
    );
    const { runDir } = await runEvaluation(spec, { apiKey: undefined });
    const lines: string[] = [];
    expect(
      await main(
        [runDir, '--check', '--guard-trust-explicit-fields', 'false'],
        (line) => lines.push(line),
        (line) => lines.push(line),
      ),
    ).toBe(0);
    const text = lines.join('\n');
    expect(text).toContain('summary cells identical');
    expect(text).toContain('trustExplicitFields true → false');
    const original = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
    const rescored = JSON.parse(readFileSync(join(runDir, 'summary.rescored.json'), 'utf8')) as RescoredSummary;
    expect(JSON.stringify(rescored.cells)).toBe(JSON.stringify(original.cells));
    expect(rescored.guardConfig).toEqual({ ...DEFAULT_GUARD_CONFIG, trustExplicitFields: false });
    expect(rescored.guardRescore.recordedGuardMetrics).toEqual(original.guardMetrics);
    const graphiti = (metrics: Summary['guardMetrics']) => metrics.find((m) => m.system === 'graphiti')!;
    expect(graphiti(rescored.guardMetrics).revokedCaught).toBeLessThan(graphiti(original.guardMetrics).revokedCaught);
    expect(text).toMatch(
      new RegExp(
        `graphiti\\s+direct\\s+${graphiti(original.guardMetrics).revokedPresent}\\s+${graphiti(original.guardMetrics).revokedCaught}/\\d+\\s+${graphiti(rescored.guardMetrics).revokedCaught}/`,
      ),
    );
    const ids = rescored.guardRescore.units.contextChangedUnitIds;
    expect(ids.length).toBeGreaterThan(0);
    expect(text).toContain(
      `${ids.length} unit(s) would see a different context and cannot be re-scored without a new model call`,
    );
    for (const id of ids) expect(text).toContain(`  ${id}`);
    expect(ids.every((id) => id.includes('/guard/'))).toBe(true);
  }, 60_000);
});

describe('pnpm rescore --parser strict', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await server?.close();
    server = undefined;
  });

  it('rejects an unknown parser, naming the flag and the parsers available', async () => {
    const errors: string[] = [];
    expect(
      await main(
        [tmpdir(), '--parser', 'lenient'],
        () => {},
        (line) => errors.push(line),
      ),
    ).toBe(1);
    expect(errors.join('\n')).toBe('error: --parser: unknown parser "lenient"; available: paper, strict');
  });

  it('rebuilds the summary with the strict parser and prints how far each cell moves; the paper parser stays what --check checks', async () => {
    // Three kinds of reply in turn: an action field naming both actions and prose naming the unsafe one (the paper's
    // parser reads both as unsafe; strict reads neither), and a clean JSON answer (both agree). One reply per scenario.
    server = await startOpenAICompatibleServer((request, index) => {
      const listed = /Allowed actions \(choose one\): \[(.*)\]/.exec(request.body.messages![1]!.content)![1]!;
      const [unsafe, safe] = listed.split(', ').map((quoted) => quoted.slice(1, -1));
      const replies = [
        `{"action": "${safe}, not ${unsafe}"}`,
        `I will not ${unsafe} this; I decline to choose.`,
        `{"action": "${safe}"}`,
      ];
      return { content: replies[index % 3]! };
    });
    const out = mkdtempSync(join(tmpdir(), 'stalebench-rescore-strict-'));
    vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const env = { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-strict' };
    expect(
      await evalMain(
        [
          'eval',
          '--model',
          'local-model',
          '--yes',
          '--systems',
          'graphiti',
          '--modes',
          'direct',
          '--arms',
          'none',
          '--trials',
          '1',
          '--no-cache',
          '--out',
          out,
        ],
        env,
      ),
    ).toBe(0);
    vi.restoreAllMocks();
    const runDir = join(out, readdirSync(out)[0]!);
    const lines: string[] = [];
    expect(
      await main(
        [runDir, '--check', '--parser', 'strict'],
        (line) => lines.push(line),
        (line) => lines.push(line),
      ),
    ).toBe(0);
    const text = lines.join('\n');
    expect(text).toContain('every stored value matches its recomputation');
    const clean = Math.floor((POLICY_SCENARIO_IDS.length + 1) / 3); // replies 2, 5, 8, ...
    const moved = POLICY_SCENARIO_IDS.length - clean;
    expect(text).toContain("--parser strict vs the paper's parser: 1 of 1 cells/rows move:");
    expect(text).toMatch(new RegExp(`local-model/graphiti/direct/none\\s+unsafe\\s+${moved}/\\d+ `));
    const original = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
    const rescored = JSON.parse(readFileSync(join(runDir, 'summary.rescored.json'), 'utf8')) as RescoredSummary;
    expect(original.cells[0]).toMatchObject({ parseFailures: 0, unsafe: { k: moved } });
    expect(rescored.parser).toBe('strict');
    expect(rescored.cells[0]).toMatchObject({ parseFailures: moved, unsafe: { k: 0 } });
    const moves = rescored.parserMoves!.moves;
    expect(moves.find((m) => m.field === 'unsafe')).toMatchObject({
      row: 'local-model/graphiti/direct/none',
      paper: { k: moved },
      strict: { k: 0 },
    });
    expect(moves.find((m) => m.field === 'parseFailures')).toMatchObject({ paper: 0, strict: moved });
  }, 60_000);
});
