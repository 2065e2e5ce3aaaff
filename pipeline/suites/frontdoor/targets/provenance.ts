// Signed writes (agmi's signing.py in TypeScript): a source label plus an Ed25519 signature by the writer's key.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import type { FieldValue } from '../../../../backends/memory-backend.js';

/** The metadata key of the source label (`user`, `external`). */
export const SOURCE_FIELD = 'source';
/** The metadata key of the base64 Ed25519 signature; absent when the write is unsigned. */
export const SIGNATURE_FIELD = 'signature';

/** Writer metadata as the front door sends it with each insert. */
export type WriteMetadata = Readonly<Record<string, FieldValue>>;

// PKCS#8 DER header of an Ed25519 private key; the 32-byte seed follows it.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A writer's Ed25519 key pair, derived from a name so a run's signatures are reproducible byte for byte. */
export interface WriterKey {
  /** Who holds the key (`agent`, `attacker`). */
  name: string;
  privateKey: KeyObject;
  /** SPKI PEM, what a store is given as its trust root. */
  publicKeyPem: string;
}

/** Derives the writer key named `name` (seed = SHA-256 of `stalebench-frontdoor:<name>`). */
export function writerKey(name: string): WriterKey {
  const seed = createHash('sha256').update(`stalebench-frontdoor:${name}`).digest();
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return { name, privateKey, publicKeyPem };
}

/**
 * The bytes a signature covers: the namespace, the text and every metadata field except the signature, keys sorted.
 * Binding the namespace means a signed memory replayed into another user's namespace no longer verifies.
 */
function signedPayload(namespace: string, text: string, metadata: WriteMetadata): Buffer {
  const fields = Object.entries(metadata)
    .filter(([key]) => key !== SIGNATURE_FIELD)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Buffer.from(JSON.stringify([namespace, text, fields]), 'utf8');
}

/** Signs a write: returns `metadata` with the base64 signature added under `signature`. */
export function signWrite(key: WriterKey, namespace: string, text: string, metadata: WriteMetadata): WriteMetadata {
  const signature = sign(null, signedPayload(namespace, text, metadata), key.privateKey).toString('base64');
  return { ...metadata, [SIGNATURE_FIELD]: signature };
}

/**
 * Whether a write's signature verifies under any of the trusted public keys (SPKI PEM). No signature, a malformed
 * one or an unparseable key is `false`, never an exception: a store must fail closed on it.
 */
export function verifyWrite(
  trustedKeys: readonly string[],
  namespace: string,
  text: string,
  metadata: WriteMetadata,
): boolean {
  const signature = metadata[SIGNATURE_FIELD];
  if (typeof signature !== 'string' || signature === '') return false;
  const payload = signedPayload(namespace, text, metadata);
  const bytes = Buffer.from(signature, 'base64');
  return trustedKeys.some((pem) => {
    try {
      return verify(null, payload, createPublicKey(pem), bytes);
    } catch {
      return false;
    }
  });
}

/** A key as 32 raw bytes in hex, the form libraries outside Node take (inspeximus: `attest(text, secret_hex)`). */
export interface RawKeyPair {
  /** The Ed25519 seed (private key), hex. */
  secret: string;
  /** The Ed25519 public key, hex. */
  pubkey: string;
}

/** The writer's key pair as raw hex (the last 32 bytes of its PKCS#8 and SPKI DER encodings). */
export function rawKeyPair(key: WriterKey): RawKeyPair {
  const secret = key.privateKey.export({ type: 'pkcs8', format: 'der' }).subarray(-32).toString('hex');
  return { secret, pubkey: rawPublicKeyHex(key.publicKeyPem) };
}

/** An SPKI PEM Ed25519 public key as 32 raw bytes in hex. */
export function rawPublicKeyHex(publicKeyPem: string): string {
  return createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' }).subarray(-32).toString('hex');
}

/**
 * The writer whose key signed this write (its signature verifies under that writer's public key), or undefined for
 * an unsigned write or one no listed writer signed.
 */
export function signerOf(
  writers: readonly WriterKey[],
  namespace: string,
  text: string,
  metadata: WriteMetadata,
): WriterKey | undefined {
  return writers.find((writer) => verifyWrite([writer.publicKeyPem], namespace, text, metadata));
}
