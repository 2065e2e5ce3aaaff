// Secret redaction for every error text and provider body that is stored or printed (keys echoed back by a 401).

/** What replaces a secret. */
export const REDACTED = '[redacted]';

// Key-shaped strings, whatever key is configured: OpenAI/LiteLLM keys (`sk-…`, `sk-proj-…`, also the masked
// `sk-proj-****abcd` OpenAI echoes), bearer tokens and `api_key=…` / `"api_key": "…"` pairs.
const KEY_SHAPED: readonly [RegExp, string][] = [
  [/\bsk-[A-Za-z0-9*_-]{6,}/g, `sk-${REDACTED}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/*-]+=*/gi, `$1 ${REDACTED}`],
  [
    /\b(api[_-]?key|x-api-key|authorization|password|secret)(["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b)[^\s"',}[]{4,}/gi,
    `$1$2${REDACTED}`,
  ],
];

/**
 * `text` with every configured secret (exact occurrences; secrets shorter than 4 characters are ignored, they
 * would redact ordinary words) and every key-shaped string replaced by `[redacted]`.
 *
 * @example redactSecrets('Incorrect API key provided: sk-abc123def456', ['sk-abc123def456']) // 'Incorrect API key provided: [redacted]'
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined | null)[] = []): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) redacted = redacted.split(secret).join(REDACTED);
  }
  for (const [pattern, replacement] of KEY_SHAPED) redacted = redacted.replace(pattern, replacement);
  return redacted;
}

/** A redactor bound to the secrets of one run (the caller's keys), for error texts, stacks and log lines. */
export type Redactor = (text: string) => string;

/** A redactor for the given secrets. */
export function createRedactor(secrets: readonly (string | undefined | null)[]): Redactor {
  const kept = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4);
  return (text) => redactSecrets(text, kept);
}

/** Every string inside a JSON-like value redacted (objects and arrays copied; other values kept). */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, redact)])) as T;
  }
  return value;
}
