// `pnpm keygen --out <prefix>`: writes an Ed25519 key pair for `pnpm eval --sign-key` and `pnpm verify-run --pubkey`.
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { defineCommand, runAsEntryPoint, type CommandIo, type CommandLine } from '#core/command.js';
import { generateSigningKeyPair } from '../run/run-signature.js';
import { makeDirectory } from '#core/make-directory.js';

const USAGE = `usage: pnpm keygen --out <prefix>
  writes an Ed25519 key pair: <prefix>.key (private, PEM, mode 0600) for pnpm eval --sign-key, and <prefix>.pub
  (public, PEM) to give to whoever checks your runs with pnpm verify-run <run> --pubkey <prefix>.pub.
  Keep the private key outside every run and output directory (pnpm eval refuses one inside). Never overwrites.
exit codes: 0 written · 1 usage, or a file already there`;

const OPTIONS = { out: { type: 'string', short: 'o' } } as const;

/**
 * Entry point; returns the exit code. Prints the two paths and the public key's fingerprint, never the key.
 *
 * @example main(['--out', '/home/me/.stalebench/lab']) // writes lab.key and lab.pub
 */
export const main = defineCommand({ usage: USAGE, options: OPTIONS, run: keygen });

function keygen(parsed: CommandLine<typeof OPTIONS>, { out, err, usageError }: CommandIo): number {
  if (parsed.values.out === undefined || parsed.values.out === '') return usageError('--out <prefix> is required');
  const prefix = resolve(parsed.values.out);
  const [privatePath, publicPath] = [`${prefix}.key`, `${prefix}.pub`];
  const taken = [privatePath, publicPath].filter((path) => existsSync(path));
  if (taken.length > 0) {
    err(`error: ${taken.join(', ')} already exist(s); pnpm keygen never overwrites a key (choose another --out)`);
    return 1;
  }
  const pair = generateSigningKeyPair();
  makeDirectory(dirname(prefix));
  // `wx`: created here, never over a file that appeared meanwhile; the private key readable by its owner only.
  writeFileSync(privatePath, pair.privatePem, { flag: 'wx', mode: 0o600 });
  writeFileSync(publicPath, pair.publicPem, { flag: 'wx', mode: 0o644 });
  out(`private key: ${privatePath} (mode 0600; pnpm eval --sign-key ${privatePath})`);
  out(`public key:  ${publicPath} (pnpm verify-run <run> --pubkey ${publicPath})`);
  out(`fingerprint: ${pair.fingerprint}`);
  return 0;
}

runAsEntryPoint(import.meta.url, main);
