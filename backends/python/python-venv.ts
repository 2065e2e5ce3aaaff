// Where the Python store venv lives (a git-ignored cache) and how to create it from the pinned requirements.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The venv directory, relative to the repository root. */
export const VENV_DIR = join('.cache', 'python', 'venv');

/** Paths under a repository root. */
export function pythonPaths(root: string): { venv: string; python: string; driver: string; requirements: string } {
  return {
    venv: join(root, VENV_DIR),
    python: join(root, VENV_DIR, 'bin', 'python'),
    driver: join(root, 'backends', 'python', 'stalebench_store_driver.py'),
    requirements: join(root, 'backends', 'python', 'requirements.txt'),
  };
}

/** What is missing to run Python stores, or null when the venv's interpreter is there. */
export function missingPython(root: string, systemPython = 'python3'): string | null {
  const paths = pythonPaths(root);
  if (existsSync(paths.python)) return null;
  const probe = spawnSync(systemPython, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    return `${systemPython} is not installed (needed to create the venv ${VENV_DIR})`;
  return `no Python venv at ${VENV_DIR}: run bash .ci/install, or python3 -m venv ${VENV_DIR} && ${join(VENV_DIR, 'bin', 'pip')} install -r backends/python/requirements.txt`;
}

/**
 * Creates the venv when missing and installs the pinned requirements, retrying pip on transient failure (three
 * attempts, 5 s apart), then one package at a time so one unavailable package does not block the others. Returns
 * null on success, else what failed (callers skip with it as the printed reason).
 */
export function ensurePythonVenv(root: string, log: (line: string) => void = () => undefined): string | null {
  const paths = pythonPaths(root);
  if (!existsSync(paths.python)) {
    const created = spawnSync('python3', ['-m', 'venv', paths.venv], { encoding: 'utf8' });
    if (created.error || created.status !== 0)
      return `python3 -m venv ${VENV_DIR} failed: ${created.error?.message ?? created.stderr.trim()}`;
    log(`created ${VENV_DIR}`);
  }
  const pip = (args: string[]) =>
    spawnSync(paths.python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', ...args], {
      encoding: 'utf8',
      timeout: 600_000,
    });
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const result = pip(['-r', paths.requirements]);
    if (result.status === 0) return null;
    log(
      `pip install -r requirements.txt failed (attempt ${attempt}): ${result.stderr.trim().split('\n').slice(-2).join(' ')}`,
    );
    if (attempt < 3) spawnSync('sleep', ['5']);
  }
  const lines = readFileSync(paths.requirements, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const failed = lines.filter((line) => pip(['--no-deps', line]).status !== 0);
  return `pip install -r backends/python/requirements.txt failed three times; one at a time, ${failed.length ? `these did not install: ${failed.join(', ')}` : 'every line installed'} (stores whose package is missing are not evaluable)`;
}
