// Where every suite's `--sarif <file>` goes: the tool block (name, package version) and an atomic write.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { sarifLog, type SarifTool } from '../../analysis/index.js';
import packageJson from '../../package.json' with { type: 'json' };
import { frontdoorGateCells, type FrontdoorResults } from '../suites/frontdoor/harness/frontdoor-results.js';
import { integrityGateCells } from '../suites/integrity/harness/integrity-findings.js';
import type { IntegrityReport } from '../suites/integrity/harness/integrity-result.js';
import { writeJsonAtomic } from '../run-log/json-files.js';

/** The SARIF tool of a suite: `stalebench integrity` at the package's version. */
export function sarifTool(suite: 'eval' | 'integrity' | 'frontdoor'): SarifTool {
  return { name: `stalebench ${suite}`, version: packageJson.version };
}

/** Writes a SARIF log whole or not at all, creating its folder. */
export function writeSarifFile(path: string, log: object): void {
  mkdirSync(dirname(path), { recursive: true });
  writeJsonAtomic(path, log);
}

/** `pnpm integrity --sarif`: one result per ACCEPTED cell of the report; returns how many. */
export function writeIntegritySarif(path: string, report: Pick<IntegrityReport, 'targets'>): number {
  const findings = integrityGateCells(report.targets).flatMap((cell) => (cell.finding ? [cell.finding] : []));
  writeSarifFile(path, sarifLog(sarifTool('integrity'), findings));
  return findings.length;
}

/** `pnpm frontdoor --sarif`: one result per surfaced cell of the results; returns how many. */
export function writeFrontdoorSarif(path: string, results: FrontdoorResults): number {
  const findings = frontdoorGateCells(results).flatMap((cell) => (cell.finding ? [cell.finding] : []));
  writeSarifFile(path, sarifLog(sarifTool('frontdoor'), findings));
  return findings.length;
}
