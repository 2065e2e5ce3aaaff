// Where every suite's `--sarif <file>` goes: the tool block (name, package version) and an atomic write.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SarifTool } from '../analysis/index.js';
import packageJson from '../package.json' with { type: 'json' };
import { writeJsonAtomic } from './json-files.js';

/** The SARIF tool of a suite: `stalebench integrity` at the package's version. */
export function sarifTool(suite: 'eval' | 'integrity' | 'frontdoor'): SarifTool {
  return { name: `stalebench ${suite}`, version: packageJson.version };
}

/** Writes a SARIF log whole or not at all, creating its folder. */
export function writeSarifFile(path: string, log: object): void {
  mkdirSync(dirname(path), { recursive: true });
  writeJsonAtomic(path, log);
}
