// Secret redaction for every error text and provider body that is stored or printed (keys echoed back by a 401).
import { URL_PASSWORD } from '#core/url-credentials.js';

/** What replaces a secret. */
export const REDACTED = '[redacted]';

// Key-shaped strings, whatever key is configured: OpenAI/LiteLLM keys (`sk-…`, `sk-proj-…`, also the masked
// `sk-proj-****abcd` OpenAI echoes), bearer tokens and `api_key=…` / `"api_key": "…"` pairs.
export const KEY_SHAPED: readonly [RegExp, string][] = [
  [/\bsk-[A-Za-z0-9*_-]{6,}/g, `sk-${REDACTED}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/*-]+=*/gi, `$1 ${REDACTED}`],
  [
    /\b(api[_-]?key|x-api-key|authorization|password|secret)(["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b)[^\s"',}[]{4,}/gi,
    `$1$2${REDACTED}`,
  ],
];

// Every KEY_SHAPED match contains one of these words (any case): a text with none of them and no configured secret
// is returned as it is, without running the patterns.
const KEY_SHAPED_HINT = /sk-|bearer|basic|api|authorization|password|secret/i;

const occurs = (text: string, secret: string | undefined | null): boolean =>
  !!secret && secret.length >= 4 && text.includes(secret);

/**
 * `text` with every configured secret (exact occurrences; secrets shorter than 4 characters are ignored, they
 * would redact ordinary words) and every key-shaped string replaced by `[redacted]`.
 *
 * @example redactSecrets('Incorrect API key provided: sk-abc123def456', ['sk-abc123def456']) // 'Incorrect API key provided: [redacted]'
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined | null)[] = []): string {
  if (!KEY_SHAPED_HINT.test(text) && !secrets.some((secret) => occurs(text, secret))) return text;
  let redacted = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) redacted = redacted.split(secret).join(REDACTED);
  }
  for (const [pattern, replacement] of KEY_SHAPED) redacted = redacted.replace(pattern, replacement);
  return redacted;
}

/** A redactor bound to the secrets of one run (the caller's keys), for error texts, stacks and log lines. */
export type Redactor = (text: string) => string;

/** Variables whose value is a secret by name (`OPENAI_API_KEY`, `NEO4J_PASSWORD`, an endpoint pool's `…_API_KEY`). */
const SECRET_NAME = /(API_KEY|PASSWORD|SECRET|TOKEN|LEDGER_KEY)$/i;
/** A setting, not a secret (`SOME_TOKEN=true`): redacting it would rewrite that word in every record. */
const SETTING_WORD = /^(true|false|null|none|unset|yes|no|on|off)$/i;

/**
 * The secrets an environment holds: the value of every variable named like one, and the password of every URL in any
 * variable (`STALEBENCH_POSTGRES_URI=postgresql://bench:s3cret@db/agmi` gives `s3cret`), as written and decoded.
 *
 * @example createRedactor(environmentSecrets(process.env))
 */
export function environmentSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (SECRET_NAME.test(name) && !SETTING_WORD.test(value)) secrets.push(value);
    for (const match of value.matchAll(URL_PASSWORD)) {
      const password = match[2]!;
      secrets.push(password);
      try {
        secrets.push(decodeURIComponent(password));
      } catch {
        // Not percent-encoded as a URL would be: the password as written is enough.
      }
    }
  }
  return secrets;
}

/** A redactor for the given secrets. */
export function createRedactor(secrets: readonly (string | undefined | null)[]): Redactor {
  const kept = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4);
  return (text) => redactSecrets(text, kept);
}

/**
 * Whether `redactDeep` would return a copy equal to `value`: no string changes and every object is a plain object or
 * array (a Date, a Map or a class instance is copied into a plain object, which serializes differently).
 */
function unchanged(value: unknown, redact: Redactor): boolean {
  if (typeof value === 'string') return redact(value) === value;
  if (value === null || typeof value !== 'object') return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (Array.isArray(value)) return prototype === Array.prototype && value.every((item) => unchanged(item, redact));
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const item of Object.values(value)) if (!unchanged(item, redact)) return false;
  return true;
}

/**
 * Every string inside a JSON-like value redacted (objects and arrays copied; other values kept). A value in which
 * nothing would change is returned as it is, uncopied (a run-log record without a secret, the usual case).
 */
export function redactDeep<T>(value: T, redact: Redactor): T {
  return unchanged(value, redact) ? value : copyRedacted(value, redact);
}

function copyRedacted<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => copyRedacted(item, redact)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyRedacted(item, redact)])) as T;
  }
  return value;
}
