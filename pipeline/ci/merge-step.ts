// The action's merge step: `pnpm merge` of a matrix's shard run directories (downloaded artifacts), then SARIF and
// the thresholds over the whole run, with the rules the shards were run with (recorded in their manifests).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expandFailOn } from '../run/threshold-file.js';
import { main as mergeMain } from '../merge/merge-command.js';
import { type ActionManifest, actionCommandOf } from './action-commands.js';
import type { ChildIo } from './run-node.js';
import { reportMarkdown, sarifWritten, type StepResult } from './step-report.js';

/** What the merge step is given (paths absolute). */
export interface MergeStepInputs {
  /** An id of action-commands.ts (`eval`, `integrity`, …). */
  suite: string;
  /** The folder the shard run directories were downloaded to, each in a subfolder (or one deeper). */
  shards: string;
  /** The merged run directory (new). */
  out: string;
  sarif: string | null;
  /** The action's fail-on input: when given, it must be the rules the shards were run with. */
  failOn: readonly string[];
}

/** Run directories (a `manifest.json` inside) in `root`'s subfolders and theirs, in path order. */
function shardDirs(root: string): string[] {
  const found: string[] = [];
  const visit = (dir: string, depth: number) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())) {
      const path = join(dir, entry.name);
      if (existsSync(join(path, 'manifest.json'))) found.push(path);
      else if (depth < 2) visit(path, depth + 1);
    }
  };
  if (existsSync(root)) visit(root, 1);
  return found.sort();
}

/** Merges the shards, writes SARIF, and returns how the step ends: the merged run's exit code, 1 when refused. */
export async function mergeStep(inputs: MergeStepInputs, env: NodeJS.ProcessEnv, io: ChildIo): Promise<StepResult> {
  // A rule file (`@<file>`) is read first (a bad one refuses before anything is merged) and compared by its rules.
  const command = actionCommandOf(inputs.suite);
  const given = expandFailOn(inputs.failOn, command.gate);
  const dirs = shardDirs(inputs.shards);
  if (inputs.sarif) rmSync(inputs.sarif, { force: true }); // never an earlier run's
  const result = (exitCode: number, notes: string[], runDir: string | null): StepResult => ({
    suite: inputs.suite,
    title: `merged ${dirs.length} shard(s)`,
    exitCode,
    suiteExitCode: exitCode,
    runDir,
    sarif: sarifWritten(inputs.sarif),
    notes,
    markdown: null,
  });
  if (dirs.length === 0) return result(1, [`no shard run directory under \`${inputs.shards}\``], null);
  let refusal = '';
  const merged = mergeMain(
    [...dirs, '-o', inputs.out],
    (text) => io.out(`${text}\n`),
    (text) => {
      refusal += `${text}\n`;
      io.err(`${text}\n`);
    },
  );
  if (merged !== 0) return result(1, [`pnpm merge refused the shards: ${refusal.trim().split('\n')[0] ?? ''}`], null);
  const manifest = JSON.parse(readFileSync(join(inputs.out, 'manifest.json'), 'utf8')) as ActionManifest;
  const recorded = command.recordedFailOn(manifest);
  if (given.length > 0 && JSON.stringify(given) !== JSON.stringify(recorded))
    return result(
      1,
      [
        `fail-on ${JSON.stringify(given)} is not what the shards were run with (${JSON.stringify(recorded)}): give the shard jobs' fail-on, or none`,
      ],
      inputs.out,
    );
  const { exitCode, notes } = command.judgeMerged(inputs.out, manifest, inputs.sarif, env);
  return {
    ...result(exitCode, notes, inputs.out),
    markdown: await reportMarkdown(command, inputs.out, env, io),
  };
}
