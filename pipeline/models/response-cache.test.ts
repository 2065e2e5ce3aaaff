// The response cache stores replies redacted (issue #26 item 2); a disk failure's last line (item 3).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StorageError } from '#core/errors.js';
import { createRedactor } from '../run/redact.js';
import { cacheEntryPath, createResponseCache } from './response-cache.js';
import { listCacheFiles } from './response-cache-files.js';
import { storageFailureLine } from '../run/storage-failure.js';

const KEY = 'proxy-key-0123456789';
const redact = createRedactor([KEY]);
const components = (body: string) => ({ baseURL: 'http://127.0.0.1:1/v1', model: 'm', sample: 's', trial: 0, body });

describe('createResponseCache', () => {
  it('stores a reply redacted, and a replay returns the redacted reply under the same key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-cache-'));
    const cache = createResponseCache({ dir, enabled: true, redact });
    const { key, components: full } = cache.keyOf(components('{"messages":[]}'));
    cache.put(key, full, { text: `echo ${KEY}`, usage: null });
    expect(readFileSync(cacheEntryPath(dir, key), 'utf8')).not.toContain(KEY);
    expect(cache.get<{ text: string }>(key)?.value.text).toBe('echo [redacted]');
  });

  it('does not store an entry whose key components hold a secret (redacting them would break its key)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-cache-'));
    const cache = createResponseCache({ dir, enabled: true, redact });
    const { key, components: full } = cache.keyOf(components(`{"prompt":"${KEY}"}`));
    cache.put(key, full, { text: 'fine' });
    expect(listCacheFiles(dir)).toEqual([]);
  });
});

describe('storageFailureLine', () => {
  const failure = (path: string) =>
    Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write', path });

  it('points a cache file at --cache-dir and a run file at --out', () => {
    expect(storageFailureLine(failure('/c/ab/ab.json'), { cacheDir: '/c' })).toBe(
      'cannot write /c/ab/ab.json: no space left on device (ENOSPC). Free space on that file system and re-run the same command to resume, or give --cache-dir on another disk (or --no-cache).',
    );
    expect(storageFailureLine(failure('/cache2/x'), { cacheDir: '/c' })).toContain('or give --out on another disk');
  });

  it('finds the failure behind a disposal error, first cause first, and is undefined for any other error', () => {
    const disposal = Object.assign(new Error('An error was suppressed during disposal'), {
      name: 'SuppressedError',
      error: failure('/r/manifest.json'),
      suppressed: new StorageError('/r/records.jsonl', 'ENOSPC', 'no space left on device'),
    });
    expect(storageFailureLine(disposal)).toMatch(
      /^cannot write \/r\/records\.jsonl: no space left on device \(ENOSPC\)/,
    );
    expect(storageFailureLine(new Error('boom'))).toBeUndefined();
    expect(storageFailureLine(Object.assign(new Error('gone'), { code: 'ENOENT', path: '/x' }))).toBeUndefined();
  });
});
