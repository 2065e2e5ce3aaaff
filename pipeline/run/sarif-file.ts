// Where every suite's `--sarif <file>` goes: the tool block (name, package version) and an atomic write.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sarifLog, type SarifTool } from '../../analysis/index.js';
import packageJson from '../../package.json' with { type: 'json' };
import { frontdoorGateCells, type FrontdoorResults } from '../suites/frontdoor/harness/frontdoor-results.js';
import { integrityGateCells } from '../suites/integrity/harness/integrity-findings.js';
import type { IntegrityReport } from '../suites/integrity/harness/integrity-result.js';
import { writeJsonAtomic } from '../run-log/json-files.js';
import { makeDirectory } from '#core/make-directory.js';

/** The SARIF tool of a suite: `stalebench integrity` at the package's version. */
export function sarifTool(suite: 'eval' | 'integrity' | 'frontdoor'): SarifTool {
  return { name: `stalebench ${suite}`, version: packageJson.version };
}

/**
 * Where SARIF locations are relative to: the repository GitHub resolves relative URIs against, i.e. the workspace of
 * a GitHub Actions job (the action runs the suites from its own checkout), else the command's working directory.
 */
export function sarifBase(env: Readonly<Record<string, string | undefined>>, cwd: string = process.cwd()): string {
  return env.GITHUB_WORKSPACE || cwd;
}

/**
 * The SARIF location of a run's results file: its path relative to `base` (`sarifBase`), with `/` separators, or a
 * `file://` URI when it lies outside `base`.
 */
export function sarifSource(file: string, base: string): string {
  const path = relative(resolve(base), resolve(file));
  if (path === '' || path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path))
    return pathToFileURL(resolve(file)).href;
  return path.split(sep).join('/');
}

/** Writes a SARIF log whole or not at all, creating its folder. */
export function writeSarifFile(path: string, log: object): void {
  makeDirectory(dirname(path));
  writeJsonAtomic(path, log);
}

/** `pnpm integrity --sarif`: one result per ACCEPTED cell of the report (read from `source`); returns how many. */
export function writeIntegritySarif(path: string, report: Pick<IntegrityReport, 'targets'>, source: string): number {
  const findings = integrityGateCells(report.targets).flatMap((cell) => (cell.finding ? [cell.finding] : []));
  writeSarifFile(path, sarifLog(sarifTool('integrity'), findings, source));
  return findings.length;
}

/** `pnpm frontdoor --sarif`: one result per surfaced cell of the results (read from `source`); returns how many. */
export function writeFrontdoorSarif(path: string, results: FrontdoorResults, source: string): number {
  const findings = frontdoorGateCells(results).flatMap((cell) => (cell.finding ? [cell.finding] : []));
  writeSarifFile(path, sarifLog(sarifTool('frontdoor'), findings, source));
  return findings.length;
}
