// Issue #26 item 13: `.ci/install` installs Java 17 and Maven (Debian packages) when either is missing.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const INSTALL = resolve(import.meta.dirname, '..', '.ci', 'install');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `.ci/install` with a PATH of stubs only: pnpm, apt-get and sudo log their arguments and succeed; `present`
 * names the other tools that exist (as stubs). Python is absent, so the venv steps are skipped. Returns the log.
 */
function installWith(present: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-ci-install-'));
  dirs.push(dir);
  const bin = join(dir, 'bin');
  const log = join(dir, 'calls.log');
  mkdirSync(bin);
  const stub = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  for (const name of ['pnpm', 'apt-get']) stub(name, `echo "${name} $*" >> "${log}"`);
  stub('sudo', '"$@"');
  for (const name of present) stub(name, 'exit 0');
  // The coreutils the script itself uses.
  for (const tool of ['dirname', 'id', 'sleep', 'env', 'cat', 'grep'])
    for (const from of [`/usr/bin/${tool}`, `/bin/${tool}`])
      if (existsSync(from) && !existsSync(join(bin, tool))) symlinkSync(from, join(bin, tool));
  const result = spawnSync('/bin/bash', [INSTALL], { env: { PATH: bin, HOME: dir }, encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
}

const javaInstall = (calls: string[]) => calls.filter((call) => /^apt-get .*install/.test(call) && /maven/.test(call));

describe('.ci/install and the Neo4j suite prerequisites', () => {
  it('apt-installs openjdk-17-jdk-headless and maven when java and mvn are missing', () => {
    const calls = installWith([]);
    expect(calls).toContain('pnpm install --frozen-lockfile');
    expect(javaInstall(calls)).toEqual([expect.stringMatching(/install -y -qq openjdk-17-jdk-headless maven$/)]);
  });

  it('installs them when only one is missing, and nothing when both are there', () => {
    expect(javaInstall(installWith(['java']))).toHaveLength(1);
    expect(javaInstall(installWith(['java', 'mvn']))).toEqual([]);
  });
});
