// The seam between the runlog target and the run-log format: how unit records are written and read back.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadRun } from '../../../../analysis/index.js';
import { appendJsonLine, readJsonIfExists, writeJsonAtomic } from '../../../run-log/json-files.js';
import { RUN_LOG_VERSION, type RunManifest, type UnitRecord } from '../../../run-log/run-log.js';
import { runBinding } from '../../../run/run-binding.js';
import { openRunLogFile } from '../../../run-log/run-log-chain.js';
import { readLogHeads } from '../../../run-log/run-log-repair.js';
import { checkRunLog, problemText } from '../../../run-log/run-log-verify.js';

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

/**
 * The format before issue #11: `records.jsonl` appended line by line with no chain and no MAC, read the way
 * `analysis/load-run.ts` reads lines (kept to measure what the chain adds; today's reader refuses version 1).
 */
export const UNCHAINED_RUN_LOG: RunLogFormat = {
  id: 'unchained records.jsonl (run-log v1)',
  append(runDir, record) {
    const manifest = join(runDir, 'manifest.json');
    if (!existsSync(manifest))
      writeJsonAtomic(manifest, { version: RUN_LOG_VERSION, runId: runDir.split('/').at(-1), status: 'success' });
    appendJsonLine(join(runDir, 'records.jsonl'), record);
  },
  load: (runDir) => [...loadRun(runDir).records.values()],
};

/**
 * Today's format: every line carries the hash of the previous one and the manifest holds each file's head
 * (pipeline/run-log/run-log-chain.ts). Its read path is the analysis commands', which verify the chain before reading
 * (analysis/verify-runs.ts): an edit is refused at read. The chain is unkeyed, so an edit that recomputes every
 * hash and the manifest's heads is not caught (analysis/README.md says so).
 */
export const CHAINED_RUN_LOG: RunLogFormat = {
  id: `hash-chained records.jsonl (run-log v${RUN_LOG_VERSION})`,
  append(runDir, record) {
    const path = join(runDir, 'manifest.json');
    if (!existsSync(path))
      writeJsonAtomic(path, {
        version: RUN_LOG_VERSION,
        runId: runDir.split('/').at(-1),
        status: 'success',
        spec: {},
        logHeads: {},
      });
    openRunLogFile(runDir, 'records.jsonl').append(record);
    const manifest = readJsonIfExists<RunManifest>(path)!;
    // The heads and the binding of spec and summary.json, written together as every manifest write of eval does.
    writeJsonAtomic(path, { ...manifest, logHeads: readLogHeads(runDir), bound: runBinding(runDir, manifest.spec) });
  },
  load(runDir) {
    const check = checkRunLog(runDir);
    if (check.problems.length > 0) throw new Error(`run log does not verify: ${problemText(check.problems[0]!)}`);
    return [...loadRun(runDir).records.values()];
  },
};
