// CPython's uuid.uuid5 (SHA-1 of namespace bytes + UTF-8 name), printed as str(uuid).
import { createHash } from 'node:crypto';

/** `uuid.NAMESPACE_OID` (RFC 4122), the namespace cognee names its chunks and entities under. */
export const NAMESPACE_OID = '6ba7b812-9dad-11d1-80b4-00c04fd430c8';

/**
 * Python `str(uuid.uuid5(namespace, name))`.
 *
 * @example pythonUuid5('abc-0') // '662d30c6-c44d-578c-b93e-ce43440afefd'
 */
export function pythonUuid5(name: string, namespace: string = NAMESPACE_OID): string {
  const bytes = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
