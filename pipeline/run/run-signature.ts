// Ed25519 signatures over a run's final heads, manifest and summary: a run a third party can check with the public key.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { InvalidInputError } from '#core/errors.js';
import { writeJsonAtomic } from '../run-log/json-files.js';
import { fileSha256 } from './run-binding.js';
import { lineHash } from '../run-log/run-log-chain.js';
import type { LogHead, RunManifest } from '../run-log/run-log.js';

/** The file in the run directory that holds the signature. */
export const SIGNATURE_FILE = 'signature.json';

/** What is signed: the heads the manifest records and the sha256 of manifest.json and summary.json as written. */
export interface SignedPayload {
  runId: string;
  logHeads: Record<string, LogHead>;
  manifestSha256: string;
  summarySha256: string | null;
}

/** `signature.json`: the payload, the signer's public key fingerprint and the Ed25519 signature of the payload's JSON. */
export interface RunSignature {
  version: 1;
  algorithm: 'ed25519';
  /** `sha256:` + sha256 hex of the public key (SPKI DER). */
  keyFingerprint: string;
  signedAt: string;
  payload: SignedPayload;
  /** base64 Ed25519 signature of `JSON.stringify(payload)`. */
  signature: string;
}

/** `sha256:<hex>` of a key's public half (SPKI DER): what `signature.json` and `pnpm keygen` name a key by. */
function keyFingerprint(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return `sha256:${lineHash(pub.export({ type: 'spki', format: 'der' }))}`;
}

/** A new Ed25519 pair as PEM (private PKCS#8, public SPKI) and the public key's fingerprint. */
export function generateSigningKeyPair(): { privatePem: string; publicPem: string; fingerprint: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    fingerprint: keyFingerprint(publicKey),
  };
}

/** True when `path` is `dir` or inside it (symlinks resolved where they exist). */
function isInside(path: string, dir: string): boolean {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
  const rel = relative(real(dir), real(path));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Reads `--sign-key`: an Ed25519 private key in PEM. Refused (InvalidInputError naming the flag) when missing,
 * not an Ed25519 private key, or inside one of `forbidden` (the run directory, the output directory): a key stored
 * beside the run would let anyone who has the run sign a forgery. The key's text is never part of an error.
 *
 * @example const key = readSigningKey('~/keys/lab.key', [{ dir: runDir, label: 'the run directory' }]);
 */
export function readSigningKey(path: string, forbidden: readonly { dir: string; label: string }[]): KeyObject {
  const file = resolve(path);
  const fail = (message: string) => new InvalidInputError('--sign-key', [{ path: file, message }]);
  if (!existsSync(file)) throw fail('no such file (pnpm keygen --out <prefix> writes a key pair)');
  for (const { dir, label } of forbidden)
    if (isInside(file, dir))
      throw fail(`inside ${label} (${resolve(dir)}); keep the private key outside every run and output directory`);
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file));
  } catch {
    throw fail('not a PEM private key (pnpm keygen --out <prefix> writes an Ed25519 pair)');
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw fail(`an ${key.asymmetricKeyType ?? 'unknown'} key; --sign-key takes an Ed25519 private key`);
  return key;
}

/** Reads `--pubkey`: an Ed25519 public key in PEM (a private key is accepted and its public half used). */
export function readPublicKey(path: string): KeyObject {
  const file = resolve(path);
  const fail = (message: string) => new InvalidInputError('--pubkey', [{ path: file, message }]);
  if (!existsSync(file)) throw fail('no such file');
  let key: KeyObject;
  try {
    key = createPublicKey(readFileSync(file));
  } catch {
    throw fail('not a PEM public key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw fail(`an ${key.asymmetricKeyType ?? 'unknown'} key; expected Ed25519`);
  return key;
}

/** The payload of `runDir` as it is on disk now. */
function payloadOf(runDir: string): SignedPayload {
  const manifestPath = join(runDir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as RunManifest;
  return {
    runId: manifest.runId,
    logHeads: manifest.logHeads ?? {},
    manifestSha256: fileSha256(manifestPath)!,
    summarySha256: fileSha256(join(runDir, 'summary.json')),
  };
}

/**
 * Signs the run as it is now (its final manifest, written last) and writes `signature.json` atomically. Called at
 * the end of every `pnpm eval --sign-key` invocation, after the manifest's last write.
 */
export function signRun(runDir: string, key: KeyObject, now: Date = new Date()): RunSignature {
  const payload = payloadOf(runDir);
  const signature: RunSignature = {
    version: 1,
    algorithm: 'ed25519',
    keyFingerprint: keyFingerprint(key),
    signedAt: now.toISOString(),
    payload,
    signature: sign(null, Buffer.from(JSON.stringify(payload)), key).toString('base64'),
  };
  writeJsonAtomic(join(runDir, SIGNATURE_FILE), signature);
  return signature;
}

/** The verdict on a run's signature: `ok`, or which check failed. */
export type SignatureCheck =
  | { ok: true; fingerprint: string; signedAt: string }
  | { ok: false; kind: 'missing' | 'does-not-verify' | 'another-key'; message: string };

/**
 * Checks `signature.json` against `publicKey` and the run's files: missing, signed by another key, a signature
 * that does not verify (altered, forged), or a valid signature over other files than the ones there now.
 */
export function checkRunSignature(runDir: string, publicKey: KeyObject): SignatureCheck {
  const path = join(runDir, SIGNATURE_FILE);
  const given = keyFingerprint(publicKey);
  if (!existsSync(path))
    return {
      ok: false,
      kind: 'missing',
      message: `signature missing: no ${SIGNATURE_FILE} (the run was not written with pnpm eval --sign-key)`,
    };
  const bad = (message: string): SignatureCheck => ({
    ok: false,
    kind: 'does-not-verify',
    message: `signature does not verify: ${message}`,
  });
  let stored: RunSignature;
  try {
    stored = JSON.parse(readFileSync(path, 'utf8')) as RunSignature;
  } catch (error) {
    return bad(`${SIGNATURE_FILE} is not valid JSON (${(error as Error).message})`);
  }
  if (typeof stored?.signature !== 'string' || typeof stored.payload !== 'object' || stored.payload === null)
    return bad(`${SIGNATURE_FILE} has no payload or signature`);
  if (stored.keyFingerprint !== given)
    return {
      ok: false,
      kind: 'another-key',
      message: `signed by another key: ${SIGNATURE_FILE} names ${String(stored.keyFingerprint)}, --pubkey is ${given}`,
    };
  if (!verify(null, Buffer.from(JSON.stringify(stored.payload)), publicKey, Buffer.from(stored.signature, 'base64')))
    return bad(
      `the Ed25519 signature in ${SIGNATURE_FILE} is not this key's signature of its payload (altered or forged)`,
    );
  let now: SignedPayload;
  try {
    now = payloadOf(runDir);
  } catch (error) {
    return bad(`manifest.json cannot be read (${(error as Error).message})`);
  }
  const changed = [
    ...(now.runId !== stored.payload.runId ? ['runId'] : []),
    ...(now.manifestSha256 !== stored.payload.manifestSha256 ? ['manifest.json'] : []),
    ...(now.summarySha256 !== stored.payload.summarySha256 ? ['summary.json'] : []),
    ...(JSON.stringify(now.logHeads) !== JSON.stringify(stored.payload.logHeads) ? ['logHeads'] : []),
  ];
  if (changed.length > 0)
    return bad(
      `${changed.join(', ')} changed since it was signed at ${stored.signedAt} (edited, or written by an invocation without --sign-key)`,
    );
  return { ok: true, fingerprint: given, signedAt: stored.signedAt };
}

/** The directories `--sign-key` may not be inside: the run directory and the output root (`--out`). */
export function forbiddenKeyDirs(runDir: string, out: string): { dir: string; label: string }[] {
  return [
    { dir: runDir, label: 'the run directory' },
    { dir: out, label: 'the output directory (--out)' },
  ];
}
