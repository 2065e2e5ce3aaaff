// The store-environment installer as an adversary meets it: a stale lock from a killed install, a pin edited after
// the install, a pip that fails. Uses a real venv in a temporary root and requirements that need no network.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installStoreEnv, missingStoreEnv, storeEnvPaths } from './store-envs.js';

const ENV = 'atelya-attest'; // any registered id: its requirements here are the temporary root's, not the real pins
const scratch = mkdtempSync(join(tmpdir(), 'store-envs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function rootWith(name: string, requirements: string): string {
  const root = join(scratch, name);
  mkdirSync(join(root, 'backends', 'python', 'envs'), { recursive: true });
  writeFileSync(storeEnvPaths(root, ENV).requirements, requirements);
  return root;
}

describe('store environments', () => {
  it('takes over the lock of a killed install, marks the venv installed last, and asks again once a pin is edited', () => {
    const root = rootWith('stale-lock', '# nothing to install\n');
    const lock = join(root, '.cache', 'python-stores', `${ENV}.lock`);
    mkdirSync(lock, { recursive: true });
    writeFileSync(join(lock, 'pid'), '999999999'); // a pid no process has: the installer that held it was killed
    expect(missingStoreEnv(root, ENV)).toMatch(`run pnpm stores install ${ENV} (`);
    const log: string[] = [];
    expect(installStoreEnv(root, ENV, (line) => log.push(line))).toBeNull();
    expect(log).toContain(`${ENV}: installed`);
    expect(existsSync(lock)).toBe(false);
    expect(missingStoreEnv(root, ENV)).toBeNull();
    expect(readFileSync(join(root, '.cache', 'python-stores', ENV, 'installed'), 'utf8')).toBe(
      '# nothing to install\n',
    );
    // An edited pin means the venv no longer holds exactly the pins: the environment is missing until reinstalled.
    writeFileSync(storeEnvPaths(root, ENV).requirements, '# nothing to install, edited\n');
    expect(missingStoreEnv(root, ENV)).toMatch('is not installed');
  }, 120_000);

  it('a pip that fails leaves no installed mark and says which file failed', () => {
    const root = rootWith('pip-fails', './no-such-local-package\n');
    const problem = installStoreEnv(root, ENV);
    expect(problem).toBe(`pip install -r backends/python/envs/${ENV}.txt failed three times`);
    expect(existsSync(join(root, '.cache', 'python-stores', ENV, 'installed'))).toBe(false);
    expect(missingStoreEnv(root, ENV)).toMatch('is not installed');
    expect(existsSync(join(root, '.cache', 'python-stores', `${ENV}.lock`))).toBe(false);
  }, 120_000);
});
