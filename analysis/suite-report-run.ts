// `pnpm report <suite run dir>`: verifies the run, then writes its suite's renderings of summary.json (scorecards).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkRunLog } from '../pipeline/index.js';
// The suite registry is analysis's second door into pipeline/ (pipeline/core/layers.test.ts): it holds suites that
// import analysis/index.ts, so reaching it through pipeline/index.ts would close a cycle.
import { suiteReportOf } from '../pipeline/suites/index.js';
import { describeRunLogCheck } from './verify-runs.js';
import type { SuiteReportV1 } from '../pipeline/index.js';
import { makeDirectory } from '#core/make-directory.js';

/** What `reportSuiteRun` needs besides the run directory. */
export interface SuiteReportOptions {
  /** Output directory (default `<run dir>/report`). */
  outDir?: string;
  /** `--no-verify`: read the run as stored. */
  noVerify: boolean;
  /** `--allow-incomplete`: report a run whose status is not success. */
  allowIncomplete: boolean;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Renderers by suite id (default: each registered suite's `report`, pipeline/suites/index.ts; a test adds its own). */
  reports?: ReadonlyMap<string, SuiteReportV1<unknown>>;
}

/**
 * Reports one suite run: refused (exit 1) when its run log does not verify, it has no summary.json, it did not end
 * as success (without `allowIncomplete`) or no renderer is registered for its suite; else every file its renderer
 * gives is written and its text printed.
 */
export function reportSuiteRun(runDir: string, suite: string, options: SuiteReportOptions): number {
  const { out, err } = options;
  const report = options.reports ? options.reports.get(suite) : suiteReportOf(suite);
  if (!report) {
    err(`error: ${runDir}: no report is registered for suite ${suite}`);
    return 1;
  }
  const check = checkRunLog(resolve(runDir));
  if (!options.noVerify && check.state !== 'intact' && !(check.state === 'unfinished' && options.allowIncomplete)) {
    err(describeRunLogCheck(check));
    err(`error: ${runDir} does not verify; not reported (--no-verify reads it as stored)`);
    return 1;
  }
  if (check.status !== 'success' && !options.allowIncomplete) {
    err(`error: ${runDir}: status ${check.status}; resume it with the same command, or --allow-incomplete`);
    return 1;
  }
  const summaryPath = join(resolve(runDir), 'summary.json');
  if (!existsSync(summaryPath)) {
    err(`error: ${summaryPath}: missing; resume the run with the same command`);
    return 1;
  }
  const summary: unknown = JSON.parse(readFileSync(summaryPath, 'utf8'));
  const dir = resolve(options.outDir ?? join(runDir, 'report'));
  makeDirectory(dir);
  const files = report.render(summary);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  out(report.text(summary));
  out(
    `wrote ${Object.keys(files)
      .map((name) => join(dir, name))
      .join(', ')}`,
  );
  return 0;
}
