// A connection URL's password never reaches a description, a progress line, a record or a report: servers are named
// by URLs the user sets (STALEBENCH_POSTGRES_URI, STALEBENCH_REDIS_URL, NEO4J_URI, OPENAI_BASE_URL), and a URL may
// carry its password (`postgresql://bench:s3cret@db:5432/agmi`, `redis://:s3cret@cache:6379`).

/** `scheme://user:password@`: the scheme and user kept, the password matched (it cannot hold `@`, `/` or spaces). */
export const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*):([^\s/?#@]+)@/gi;

/**
 * `text` with the password of every URL in it replaced by `[redacted]` (user, host and path kept, so the server is
 * still named); a URL without a password is left as it is.
 *
 * @example withoutPassword('postgresql://bench:s3cret@db:5432/agmi') // 'postgresql://bench:[redacted]@db:5432/agmi'
 */
export function withoutPassword(text: string): string {
  return text.replace(URL_PASSWORD, '$1:[redacted]@');
}
