// Test support: a grid run as one process and as `--shard i/n` eval processes running at the same time, then merged.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { vi } from 'vitest';
import type { Summary } from '../../analysis/grid/summarize.js';
import { main as evalMain } from '../cli/cli.js';
import { main as mergeMain } from '../merge/merge-command.js';
import { spawnEval } from './spawn-eval.js';

/** `pnpm eval` in this process, its output collected. */
export async function evalInProcess(args: string[], env: NodeJS.ProcessEnv = {}) {
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
  try {
    return { code: await evalMain(['eval', ...args], env), stderr: err.join('\n') };
  } finally {
    vi.restoreAllMocks();
  }
}

/**
 * Runs shards `1/count` … `count/count` of the grid `args` as separate eval processes at the same time (each its own
 * pid, nonce and lock, as on separate machines), all under `out`; returns their run directories in shard order.
 */
export async function runShardProcesses(args: string[], out: string, count: number, env: NodeJS.ProcessEnv = {}) {
  const children = Array.from({ length: count }, (_, i) =>
    spawnEval([...args, '--out', out, '--quiet', '--shard', `${i + 1}/${count}`], env),
  );
  const codes = await Promise.all(children.map((child) => child.exited));
  codes.forEach((code, i) => {
    if (code !== 0) throw new Error(`shard ${i + 1}/${count} exited ${code}: ${children[i]!.stderr()}`);
  });
  const dirs = readdirSync(out).sort();
  return Array.from({ length: count }, (_, i) => join(out, dirs.find((d) => d.endsWith(`_shard${i + 1}of${count}`))!));
}

/** `pnpm merge` in this process: its exit code and what it printed. */
export function merge(dirs: string[], out: string) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = mergeMain(
    [...dirs, '-o', out],
    (text) => stdout.push(text),
    (text) => stderr.push(text),
  );
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

/** `summary.json` of a run directory, as its exact bytes and parsed. */
export function summaryOf(runDir: string): { text: string; summary: Summary } {
  const text = readFileSync(join(runDir, 'summary.json'), 'utf8');
  return { text, summary: JSON.parse(text) as Summary };
}
