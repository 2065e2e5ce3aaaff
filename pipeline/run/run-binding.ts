// Binds manifest.json's spec and summary.json to the run log: their sha256 are written beside the chained heads.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { lineHash } from '../run-log/run-log-chain.js';
import type { RunBinding, RunManifest } from '../run-log/run-log.js';

/** sha256 of the spec's JSON as the manifest stores it (a JSON round trip gives the same text). */
function specSha256(spec: RunManifest['spec'] | SuiteSpecJson): string {
  return lineHash(JSON.stringify(spec));
}

/** A suite run's spec (pipeline/suites/suite-manifest.ts): plain JSON, bound the same way. */
type SuiteSpecJson = { suite: string; args: unknown };

/** What `fileSha256` gives for a path that exists but is no regular file (a directory): it matches no sha256. */
const NOT_A_FILE = 'not a regular file';

/** sha256 of a file's exact bytes, or null when it does not exist. */
export function fileSha256(path: string): string | null {
  if (!existsSync(path)) return null;
  return statSync(path).isFile() ? lineHash(readFileSync(path)) : NOT_A_FILE;
}

/**
 * The binding a manifest records when it is written: the sha256 of its spec and of summary.json as it is on disk
 * now. Written with the heads by every manifest write that records them (start and end of an invocation, merge).
 *
 * @example writeJsonAtomic(path, { ...manifest, logHeads: readLogHeads(runDir), bound: runBinding(runDir, manifest.spec) });
 */
export function runBinding(runDir: string, spec: RunManifest['spec'] | SuiteSpecJson): RunBinding {
  return { specSha256: specSha256(spec), summarySha256: fileSha256(join(runDir, 'summary.json')) };
}

/** One file the binding does not hold for: the file, and what differs. */
export interface BindingProblem {
  file: 'manifest.json' | 'summary.json';
  message: string;
}

/**
 * Checks the manifest's spec and summary.json against the binding it records. summary.json is checked only for a
 * finished run: an invocation that was cut off may have rewritten summary.json but not yet the manifest.
 */
export function checkBinding(runDir: string, manifest: RunManifest): BindingProblem[] {
  const bound = manifest.bound;
  // Version 3 writes the binding with every manifest write: a version-3 manifest without one had it removed.
  if (bound === undefined)
    return manifest.version >= 3
      ? [
          {
            file: 'manifest.json',
            message: `no bound field: run-log version ${manifest.version} binds the spec and summary.json with every manifest write, so it was removed`,
          },
        ]
      : [];
  const problems: BindingProblem[] = [];
  const spec = specSha256(manifest.spec);
  if (spec !== bound.specSha256)
    problems.push({
      file: 'manifest.json',
      message: `spec edited: its sha256 is ${spec.slice(0, 12)}…, the run bound ${bound.specSha256.slice(0, 12)}… (bound.specSha256) when it wrote it`,
    });
  if (manifest.status === 'started') return problems;
  const summary = fileSha256(join(runDir, 'summary.json'));
  if (summary !== bound.summarySha256)
    problems.push({
      file: 'summary.json',
      message:
        summary === null
          ? 'deleted: manifest.json binds a summary.json (bound.summarySha256)'
          : summary === NOT_A_FILE
            ? 'not a regular file: manifest.json binds a summary.json file (bound.summarySha256)'
            : bound.summarySha256 === null
              ? 'written after the run finished: manifest.json binds no summary.json'
              : `edited: its sha256 is ${summary.slice(0, 12)}…, manifest.json binds ${bound.summarySha256.slice(0, 12)}… (bound.summarySha256)`,
    });
  return problems;
}
