// Redaction: configured keys and key-shaped strings never survive into stored or printed text.
import { describe, expect, it } from 'vitest';
import { createRedactor, redactDeep, redactSecrets, REDACTED } from './redact.js';

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
