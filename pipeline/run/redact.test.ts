// Redaction: configured keys and key-shaped strings never survive into stored or printed text.
import { describe, expect, it } from 'vitest';
import { createRedactor, environmentSecrets, KEY_SHAPED, redactDeep, redactSecrets, REDACTED } from './redact.js';

describe('redactSecrets', () => {
  it('removes a configured key wherever it occurs, even when it is not key-shaped', () => {
    expect(redactSecrets('401 Incorrect API key provided: hunter2-proxy-key. See docs.', ['hunter2-proxy-key'])).toBe(
      `401 Incorrect API key provided: ${REDACTED}. See docs.`,
    );
  });

  it('removes key-shaped strings whatever is configured: sk- keys, masked keys, bearer tokens, key=value pairs', () => {
    const cases: [string, string][] = [
      ['Incorrect API key provided: sk-proj-abcDEF123456789.', `Incorrect API key provided: sk-${REDACTED}.`],
      [
        'Incorrect API key provided: sk-proj-**********************wxyz.',
        `Incorrect API key provided: sk-${REDACTED}.`,
      ],
      ['authorization: Bearer eyJhbGciOi.J9.abc', `authorization: Bearer ${REDACTED}`],
      ['sent Bearer abc.def-ghi', `sent Bearer ${REDACTED}`],
      ['{"api_key": "litellm-virtual-123456"}', `{"api_key": "${REDACTED}"}`],
      ['url?api-key=abcdef123', `url?api-key=${REDACTED}`],
    ];
    for (const [input, expected] of cases) expect(redactSecrets(input)).toBe(expected);
  });

  it('leaves ordinary text alone (short secrets are ignored: they would redact words)', () => {
    const text = 'The model answered {"action": "REJECT", "reason": "task-specific"} after 3 attempts.';
    expect(redactSecrets(text, ['ab', '', undefined, null])).toBe(text);
  });

  it('redactDeep redacts every string of a record, keys kept', () => {
    const redact = createRedactor(['sk-test-key-000']);
    const record = {
      error: { message: 'bad key sk-test-key-000', stack: 'Error: bad key sk-test-key-000\n at x' },
      attempts: 1,
      ok: false,
      nested: [{ body: 'sk-test-key-000' }],
    };
    const redacted = redactDeep(record, redact);
    expect(JSON.stringify(redacted)).not.toContain('sk-test-key-000');
    expect(redacted.attempts).toBe(1);
    expect(redacted.ok).toBe(false);
  });
});

describe('the fast paths (no secret can occur: the text, or the record, comes back as it is)', () => {
  // The full scan without the fast path: the configured secrets, then every key-shaped pattern, always.
  const fullScan = (text: string, secrets: readonly string[]) => {
    let out = text;
    for (const secret of secrets) out = out.split(secret).join(REDACTED);
    for (const [pattern, replacement] of KEY_SHAPED) out = out.replace(pattern, replacement);
    return out;
  };

  it('redacts exactly what the full scan redacts, on 20,000 generated texts of near misses in every case', () => {
    const fragments = [
      ...['sk-', 'SK-', 'Sk-', 'Bearer ', 'BASIC ', 'basic\t', 'api_key', 'API-KEY', 'apikey', 'x-api-key', 'aPi'],
      ...['Authorization', 'PASSWORD', 'Secret', 'secre', 'pass', ': ', '=', '"', "'", ' ', '\n', 'abcdef', '1234'],
      ...['****', '_-', 'kurz', 'proxy-key-0000', 'proxy-key', 'ü', '{', '}', 'REJECT', 'tok.en~+/'],
    ];
    const secrets = ['proxy-key-0000', 'kurz'];
    const redact = createRedactor(secrets);
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    let redactedSome = 0;
    for (let n = 0; n < 20_000; n += 1) {
      const length = 1 + Math.floor(next() * 8);
      const text = Array.from({ length }, () => fragments[Math.floor(next() * fragments.length)]!).join('');
      const expected = fullScan(text, secrets);
      expect(redact(text), JSON.stringify(text)).toBe(expected);
      expect(redactSecrets(text, secrets), JSON.stringify(text)).toBe(expected);
      if (expected !== text) redactedSome += 1;
    }
    expect(redactedSome).toBeGreaterThan(1000);
  });

  it('redactDeep gives back the record itself when nothing in it changes, and a redacted copy otherwise', () => {
    const redact = createRedactor(['sk-test-key-000']);
    const clean = { unitId: 'u', reply: { text: '{"action": "REJECT"}', notes: [] as string[] }, n: 1, none: null };
    expect(redactDeep(clean, redact)).toBe(clean);
    const dirty = { ...clean, error: { message: 'key sk-test-key-000' } };
    const copy = redactDeep(dirty, redact);
    expect(copy).not.toBe(dirty);
    expect(copy.reply).not.toBe(dirty.reply);
    expect(JSON.stringify(copy)).toBe(JSON.stringify({ ...clean, error: { message: `key ${REDACTED}` } }));
  });

  it('redactDeep still copies what is not a plain object or array, so the serialized line is the same as before', () => {
    const redact = createRedactor([]);
    const at = new Date('2026-12-03T00:00:00Z');
    const record = { at, map: new Map([['k', 'v']]), list: Object.assign(new (class extends Array {})(), ['x']) };
    // The copy made every such value a plain object or array: a Date and a Map print as {}.
    expect(JSON.stringify(redactDeep(record, redact))).toBe('{"at":{},"map":{},"list":["x"]}');
    expect(JSON.stringify(redactDeep({ ok: 'plain', nested: [at] }, redact))).toBe('{"ok":"plain","nested":[{}]}');
  });

  it('leaves a URL password it does not know alone: a canary a tool served is evidence, not a secret of ours', () => {
    const canary = 'DATABASE_URL=postgres://user:CANARY-HONEYPOT-DO-NOT-USE-pw@db.internal/prod';
    expect(redactSecrets(canary)).toBe(canary);
    // A password of this environment is a secret wherever it appears.
    const env = { STALEBENCH_POSTGRES_URI: 'postgresql://bench:s3cret-pg@db:5432/agmi' };
    expect(
      createRedactor(environmentSecrets(env))('could not connect to postgresql://bench:s3cret-pg@db:5432/agmi'),
    ).toBe(`could not connect to postgresql://bench:${REDACTED}@db:5432/agmi`);
  });

  it('environmentSecrets: variables named like a secret, and every URL password as written and decoded', () => {
    const secrets = environmentSecrets({
      OPENAI_API_KEY: 'sk-live-abcdef',
      POOL_B_API_KEY: 'pool-b-key-1234',
      NEO4J_PASSWORD: 'hunter22',
      STALEBENCH_LEDGER_KEY: 'ledger-key-hex',
      STALEBENCH_REDIS_URL: 'redis://:r%40dis-pw@cache:6379',
      NEO4J_URI: 'bolt://127.0.0.1:7687',
      HOME: '/home/user',
      EMPTY_TOKEN: '',
      USE_TOKEN: 'true',
    });
    expect(secrets.sort()).toEqual(
      ['sk-live-abcdef', 'pool-b-key-1234', 'hunter22', 'ledger-key-hex', 'r%40dis-pw', 'r@dis-pw'].sort(),
    );
  });
});
