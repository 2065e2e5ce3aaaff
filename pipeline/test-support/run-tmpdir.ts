// Vitest global setup (`pnpm test`, `test:servers` with its Neo4j config, `test:stores`): one temporary directory
// per test run, made the TMPDIR of every worker and of every process a test starts, and removed when the run ends. Test files make their run
// directories, source copies and scratch stores with `mkdtempSync(join(tmpdir(), …))`; most never remove them, and
// before this a `pnpm test` left about 2,000 of them (1.2 GB) in /tmp. A run that is killed leaves this one directory.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The run's temporary directory, once made (a short path: sockets made under it have a length limit of 108). */
const MARK = 'STALEBENCH_TEST_TMPDIR';

/** Makes the run's temporary directory and points TMPDIR at it; returns the teardown that removes it. */
export default function setup(): () => void {
  // Each project of a config runs the global setup (vitest.config.ts has two): the first one made it for the run.
  if (process.env[MARK] !== undefined && process.env[MARK] === process.env.TMPDIR) return () => {};
  const previous = process.env.TMPDIR;
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'stalebench-tests-')));
  process.env.TMPDIR = dir;
  process.env[MARK] = dir;
  return () => {
    delete process.env[MARK];
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}
