// Where every suite's `--sarif <file>` goes: the tool block (name, package version) and an atomic write.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sarifLog, type SarifTool } from '../../analysis/index.js';
import packageJson from '../../package.json' with { type: 'json' };
import type { SarifFinding } from './sarif-finding.js';
import { writeJsonAtomic } from '../run-log/json-files.js';
import { makeDirectory } from '#core/make-directory.js';

/** The SARIF tool of a suite: `stalebench integrity` at the package's version. */
export function sarifTool(suite: string): SarifTool {
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

/** `--sarif` of a suite (`integrity`): one result per finding, located at its results file `source`; returns how many. */
export function writeSuiteSarif(
  path: string,
  suite: string,
  findings: readonly SarifFinding[],
  source: string,
): number {
  writeSarifFile(path, sarifLog(sarifTool(suite), findings, source));
  return findings.length;
}
