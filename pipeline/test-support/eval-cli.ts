// Runs `pnpm eval` in process for a test, with its console captured (stdout and stderr as text) and restored.
import { vi } from 'vitest';
import { main } from '../cli/cli.js';

/** What one in-process `pnpm eval` printed and returned. */
export interface EvalCliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time of the call, ms. */
  ms: number;
}

/**
 * `pnpm eval <args>` through the CLI's `main` with `env`; nothing reaches the test's console. An `env` without
 * `STALEBENCH_CACHE_DIR` gets this test file's (pipeline/test-support/isolated-home.ts), so a run without
 * `--cache-dir` never writes into the clone's `.stalebench-cache`.
 *
 * @example const { code, stderr } = await runEvalCli(['--model', 'sim', '--out', dir], {});
 */
export async function runEvalCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<EvalCliResult> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts) => void out.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
  const started = Date.now();
  try {
    const cacheDir = process.env.STALEBENCH_CACHE_DIR;
    const code = await main(['eval', ...args], {
      ...(cacheDir === undefined ? {} : { STALEBENCH_CACHE_DIR: cacheDir }),
      ...env,
    });
    return { code, stdout: out.join('\n'), stderr: err.join('\n'), ms: Date.now() - started };
  } finally {
    vi.restoreAllMocks();
  }
}
