// Test support: what inspeximus itself returns for policy scenarios, run straight through the library in the venv
// (inspeximus_reference.py, no stalebench code in between), and the exposure the lexical rule gives those reads.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertsRevoked } from '../../pipeline/suites/grid/exposure.js';
import { episodesFor } from '../../pipeline/suites/grid/episodes.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { pythonPaths } from '../python/python-venv.js';
import { ROOT } from './python-memory.js';

/** One configuration × mode × scenario. */
export interface ReferenceCase {
  config: 'inspeximus' | 'inspeximus-keyed' | 'inspeximus-hist';
  mode: 'direct' | 'natural';
  scenario: Scenario;
}

/** The library's two reads of one case. */
export interface ReferenceRead {
  /** Texts of the configuration's default recall, in the library's order. */
  default: string[];
  /** Texts among them the library marked `superseded`. */
  superseded: string[];
  /** Texts of the filtered recall. */
  filtered: string[];
  /** Keys the store holds after the writes. */
  keys: string[];
  /** The lexical exposure rule (stale-retrieval.md §7.2) on the default read. */
  exposed: boolean;
  /** The same on the filtered read. */
  filteredExposed: boolean;
}

/** The environment without INSPEXIMUS_* settings, as the adapter runs the library (its defaults). */
const libraryDefaults = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('INSPEXIMUS_')));

/** Runs every case through inspeximus at `now` with k results; one Python process, a fresh store per case. */
export function libraryReads(cases: readonly ReferenceCase[], now: Date, k = 10): ReferenceRead[] {
  const dir = mkdtempSync(join(tmpdir(), 'inspeximus-reference-'));
  try {
    const job = {
      now: now.getTime() / 1000,
      dir,
      cases: cases.map(({ config, mode, scenario }) => ({
        config,
        mode,
        k,
        namespace: scenario.id,
        query: scenario.query,
        v1: scenario.v1,
        v2: scenario.v2,
        distractors: scenario.distractors,
        episodes: episodesFor(scenario, now).map((episode) => ({
          text: episode.text,
          t: episode.referenceTime.getTime() / 1000,
        })),
      })),
    };
    const result = spawnSync(pythonPaths(ROOT).python, [join(import.meta.dirname, 'inspeximus_reference.py')], {
      input: JSON.stringify(job),
      encoding: 'utf8',
      env: { ...libraryDefaults(process.env), HOME: dir, XDG_CONFIG_HOME: dir },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (result.status !== 0) throw new Error(`inspeximus_reference.py failed: ${result.stderr}`);
    const reads = JSON.parse(result.stdout) as Omit<ReferenceRead, 'exposed' | 'filteredExposed'>[];
    return reads.map((read, index) => {
      const { scenario } = cases[index]!;
      const exposed = (texts: string[]) => texts.some((text) => assertsRevoked(text, scenario.v1, scenario.v2));
      return { ...read, exposed: exposed(read.default), filteredExposed: exposed(read.filtered) };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
