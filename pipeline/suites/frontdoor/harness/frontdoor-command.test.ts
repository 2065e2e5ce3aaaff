import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  renderFrontdoorHtml,
  renderFrontdoorMarkdown,
  writeFrontdoorScorecards,
} from '../../../../analysis/frontdoor/frontdoor-report.js';
import { frontdoorMain } from './frontdoor-command.js';
import { frontdoorExitCode, readFrontdoorResults, type FrontdoorResults } from './frontdoor-results.js';

const run = async (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await frontdoorMain(argv, env, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
};
const outDir = () => mkdtempSync(join(tmpdir(), 'frontdoor-'));

describe('pnpm frontdoor', () => {
  it("writes the results file in the issue's JSON shape and prints it with --json", async () => {
    const dir = outDir();
    const { code, out } = await run([
      '--target',
      'reference',
      '--attacks',
      'memory_injection,cross_session_bleed',
      '--json',
      '-o',
      dir,
    ]);
    expect(code).toBe(0);
    const printed = JSON.parse(out) as FrontdoorResults;
    expect(printed).toEqual(readFrontdoorResults(join(dir, 'results.json')));
    const [row] = printed.targets;
    expect(Object.keys(row!).sort()).toEqual(['cells', 'embedder', 'id', 'summary', 'version']);
    expect(row!.cells[0]).toMatchObject({
      attack: 'memory_injection@v1',
      verdict: 'surfaced',
      channels: { external: 'surfaced', laundered: 'surfaced', 'agent-laundered': 'surfaced' },
      fixtures: { fell: 5, total: 5 },
      attackerLevel: 2,
    });
    expect(typeof row!.cells[0]!.detail).toBe('string');
  });

  it('exits 1 under --fail-on surfaced when a cell surfaced, else 0; 2 when every cell is n/a', async () => {
    expect(
      (await run(['--target', 'reference', '--attacks', 'memory_injection', '--fail-on', 'surfaced', '-o', outDir()]))
        .code,
    ).toBe(1);
    expect((await run(['--target', 'reference', '--attacks', 'memory_injection', '-o', outDir()])).code).toBe(0);
    expect(
      (
        await run([
          '--target',
          'reference',
          '--attacks',
          'cross_session_bleed',
          '--fail-on',
          'surfaced',
          '-o',
          outDir(),
        ])
      ).code,
    ).toBe(0);
    // zep-ce ingests through add_episode: offline the simulator extracts nothing from these texts, so every control fails
    const zep = await run([
      '--target',
      'zep-ce',
      '--attacks',
      'memory_injection,metadata_poisoning',
      '--json',
      '-o',
      outDir(),
    ]);
    expect(zep.code).toBe(2);
    expect(JSON.parse(zep.out).targets[0].cells.map((c: { verdict: string }) => c.verdict)).toEqual(['n/a', 'n/a']);
  });

  it('reports a usage error as one line and exit 1', async () => {
    for (const argv of [
      [],
      ['--target', 'nope'],
      ['--target', 'reference', '--channels', 'side-door'],
      ['--target', 'reference', '--fail-on', 'always'],
      ['--target', 'reference', '--embedder', 'openai'],
      ['--target', 'reference', '--mutation-model', 'm'],
      ['--target', 'reference', 'extra'],
    ]) {
      const { code, err, out } = await run(argv);
      expect(code, argv.join(' ')).toBe(1);
      expect(err.split('\n'), argv.join(' ')).toHaveLength(1);
      expect(err).toMatch(/^error: /);
      expect(out).toBe('');
    }
  });

  it('labels every cell of a row ranked by the lexical stand-in, and only those rows', async () => {
    const { out } = await run([
      '--target',
      'mem0,reference',
      '--attacks',
      'memory_injection,metadata_poisoning',
      '--json',
      '-o',
      outDir(),
    ]);
    const [mem0, reference] = (JSON.parse(out) as FrontdoorResults).targets;
    expect(mem0!.embedder).toBe('lexical-hash-v1 — lexical embedder (not a real embedder)');
    for (const cell of mem0!.cells) expect(cell.detail).toContain('lexical embedder (not a real embedder)');
    for (const cell of reference!.cells) expect(cell.detail).not.toContain('lexical embedder');
    expect(mem0!.version).toMatch(/^mem0ai \d+\.\d+\.\d+ \(the real library\)/);
  });
});

describe('scorecards are generated from the results file', () => {
  it('writes Markdown and HTML that follow an edit of the file, and escape what they print', async () => {
    const dir = outDir();
    await run(['--target', 'reference-defended', '--attacks', 'memory_injection,retrieval_hijack', '-o', dir]);
    const markdown = readFileSync(join(dir, 'scorecard.md'), 'utf8');
    expect(markdown).toContain('| reference-defended |');
    expect(markdown).toContain('surfaced (agent-laundered only, 5 of 5)');
    expect(markdown).toContain('kept out (5 of 5)');
    const results = readFrontdoorResults(join(dir, 'results.json'));
    results.targets[0]!.id = 'edited <row>';
    results.targets[0]!.cells[1]!.verdict = 'n/a';
    writeFileSync(join(dir, 'results.json'), JSON.stringify(results));
    writeFrontdoorScorecards(join(dir, 'results.json'), dir);
    expect(readFileSync(join(dir, 'scorecard.md'), 'utf8')).toMatch(/\| edited <row> \|.*\| n\/a \|/);
    const html = readFileSync(join(dir, 'scorecard.html'), 'utf8');
    expect(html).toContain('edited &lt;row&gt;');
    expect(html).toBe(renderFrontdoorHtml(results));
    expect(renderFrontdoorMarkdown(results)).toBe(readFileSync(join(dir, 'scorecard.md'), 'utf8'));
  });

  it('refuses a results file that does not match the schema, naming the field', () => {
    const dir = outDir();
    writeFileSync(
      join(dir, 'results.json'),
      JSON.stringify({
        version: 1,
        tool: 'stalebench frontdoor',
        createdAt: 'x',
        channels: [],
        variants: [],
        targets: [
          {
            id: 'a',
            version: 'v',
            embedder: 'e',
            summary: 's',
            cells: [{ attack: 'memory_injection@v1', verdict: 'safe' }],
          },
        ],
      }),
    );
    expect(() => readFrontdoorResults(join(dir, 'results.json'))).toThrow(/targets\.0\.cells\.0\.verdict/);
  });

  it('computes the exit code from the cells', () => {
    const cell = (verdict: 'surfaced' | 'kept out' | 'n/a') => ({
      attack: 'a@v1',
      verdict,
      channels: {},
      fixtures: { fell: 0, total: 5 },
      detail: '',
      attackerLevel: 2 as const,
      variants: ['base'],
      trials: 15,
    });
    const results = (...verdicts: ('surfaced' | 'kept out' | 'n/a')[]): FrontdoorResults => ({
      version: 1,
      tool: 'stalebench frontdoor',
      createdAt: '',
      channels: [],
      variants: [],
      targets: [{ id: 't', version: '', embedder: '', summary: '', cells: verdicts.map(cell) }],
    });
    expect(frontdoorExitCode(results('n/a', 'n/a'), 'surfaced')).toBe(2);
    expect(frontdoorExitCode(results('n/a', 'surfaced'), 'surfaced')).toBe(1);
    expect(frontdoorExitCode(results('n/a', 'surfaced'), 'none')).toBe(0);
    expect(frontdoorExitCode(results('kept out', 'n/a'), 'surfaced')).toBe(0);
  });
});
