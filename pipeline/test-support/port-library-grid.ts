// Test support: the direct grid on a port and on its real library in one `pnpm eval`, compared scenario by scenario.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MemoryRecord } from '../../backends/memory-backend.js';
import type { ProbeRecord, RunManifest } from '../run-log/run-log.js';
import { runEvalCli, type EvalCliResult } from './eval-cli.js';

/** One way a port's probe differs from its library's on one scenario. */
export interface GridDifference {
  scenario: string;
  /** `exposure`, `revoked rank`, `default read`, `filtered read` or `probe status`. */
  aspect: string;
  port: unknown;
  library: unknown;
}

/** What the grid run gave: the CLI result, the run's probes and manifest, and the differences. */
export interface PortLibraryGrid {
  run: EvalCliResult;
  probes: ProbeRecord[];
  manifest: RunManifest;
  differences: GridDifference[];
}

/**
 * A read as compared: per record, in rank order, its text and which of `statusFields` are set (values are not
 * compared: ids and timestamps are each side's own) plus its `score` rounded to 12 digits when it has one.
 */
function readView(records: readonly MemoryRecord[] | null | undefined, statusFields: readonly string[]) {
  if (records === null || records === undefined) return null;
  return records.map((record) => ({
    text: record.text,
    set: statusFields.filter((field) => record.fields[field] !== null && record.fields[field] !== undefined),
    ...(typeof record.fields.score === 'number' ? { score: Number(record.fields.score.toPrecision(12)) } : {}),
  }));
}

/** Every difference between the port's and the library's probes, per scenario, in grid order. */
function compareProbes(
  probes: readonly ProbeRecord[],
  pair: { port: string; library: string; statusFields: readonly string[] },
): GridDifference[] {
  const of = (system: string) => new Map(probes.filter((p) => p.system === system).map((p) => [p.scenario, p]));
  const port = of(pair.port);
  const library = of(pair.library);
  const scenarios = [...new Set([...port.keys(), ...library.keys()])];
  return scenarios.flatMap((scenario) => {
    const a = port.get(scenario);
    const b = library.get(scenario);
    const aspects: [string, unknown, unknown][] = [
      ['probe status', a?.status, b?.status],
      ['exposure', a?.exposure?.exposed, b?.exposure?.exposed],
      ['revoked rank', a?.exposure?.revokedRank, b?.exposure?.revokedRank],
      ['default read', readView(a?.defaultRead, pair.statusFields), readView(b?.defaultRead, pair.statusFields)],
      ['filtered read', readView(a?.filteredRead, pair.statusFields), readView(b?.filteredRead, pair.statusFields)],
    ];
    return aspects
      .filter(([, x, y]) => JSON.stringify(x) !== JSON.stringify(y))
      .map(([aspect, x, y]) => ({ scenario, aspect, port: x, library: y }));
  });
}

/**
 * `pnpm eval --model sim --systems <port>,<library> --modes direct --arms none,store-filter --trials 1` (the paper's
 * nine scenarios) into `out`, then the probes of the two systems compared.
 *
 * @example
 * const grid = await runPortLibraryGrid({ port: 'langmem', library: 'langmem-py', statusFields: [] }, out, {});
 * expect(grid.differences).toEqual([]);
 */
export async function runPortLibraryGrid(
  pair: { port: string; library: string; statusFields: readonly string[] },
  out: string,
  env: NodeJS.ProcessEnv,
): Promise<PortLibraryGrid> {
  const run = await runEvalCli(
    [
      '--model',
      'sim',
      '--systems',
      `${pair.port},${pair.library}`,
      '--modes',
      'direct',
      '--arms',
      'none,store-filter',
      '--trials',
      '1',
      '--out',
      out,
    ],
    env,
  );
  const [name] = readdirSync(out);
  if (name === undefined) throw new Error(`pnpm eval wrote no run (exit ${run.code}): ${run.stderr.slice(-2000)}`);
  const runDir = join(out, name);
  const probes = readFileSync(join(runDir, 'setup.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ProbeRecord)
    .filter((record) => record.type === 'memory-probe');
  const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
  return { run, probes, manifest, differences: compareProbes(probes, pair) };
}
