// The seam between the runlog target and the run-log format: how unit records are written and read back.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadRun } from '../../analysis/load-run.js';
import { appendJsonLine, writeJsonAtomic } from '../../pipeline/json-files.js';
import type { UnitRecord } from '../../pipeline/run-log.js';

/**
 * A run-log format as the integrity target sees it. Today's format is unchained (`UNCHAINED_RUN_LOG`); a hash-chained
 * format (another branch adds one) plugs in by implementing the same three members with its writer and verifier.
 */
export interface RunLogFormat {
  /** Id and version for the result (`unchained records.jsonl, run-log v1`). */
  readonly id: string;
  /** Writes one finished unit the way the experiment phase does (creating the run directory's manifest if missing). */
  append(runDir: string, record: UnitRecord): void;
  /** Reads the units back the way `rescore`/`report` do; throws when the format's own checks refuse the run. */
  load(runDir: string): UnitRecord[];
  /** The format's separate verifier, when it has one (detection point `audit`): null = fine, else the problem. */
  audit?(runDir: string): string | null;
}

/** The current format: `records.jsonl` appended line by line, read by `analysis/load-run.ts`, no chain, no MAC. */
export const UNCHAINED_RUN_LOG: RunLogFormat = {
  id: 'unchained records.jsonl (run-log v1)',
  append(runDir, record) {
    const manifest = join(runDir, 'manifest.json');
    if (!existsSync(manifest)) writeJsonAtomic(manifest, { version: 1, runId: runDir.split('/').at(-1), status: 'success' });
    appendJsonLine(join(runDir, 'records.jsonl'), record);
  },
  load: (runDir) => [...loadRun(runDir).records.values()],
};
