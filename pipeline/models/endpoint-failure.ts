// How a failed request to a model endpoint is named in one line: refused, DNS, TLS, timeout, key rejected, or status and message.
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';

/** The cause of a failed request in a few words: refused, DNS, TLS, timeout, key rejected, or the status and message. */
export function describeFailure(error: unknown, timeoutMs: number): string {
  const seconds = timeoutMs % 1000 === 0 ? String(timeoutMs / 1000) : (timeoutMs / 1000).toFixed(1);
  if (error instanceof APIConnectionTimeoutError) return `no answer within ${seconds} s (timeout)`;
  if (error instanceof APIError && error.status !== undefined) {
    const message = firstLine(error.message);
    if (error.status === 401 || error.status === 403)
      return `the key was rejected (${error.status}): check OPENAI_API_KEY (${message})`;
    return `answered ${error.status}: ${message}`;
  }
  const code = causeCode(error);
  if (code === 'ECONNREFUSED') return 'connection refused (nothing is listening there)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (DNS: ${code})`;
  if (code !== null && /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|EPROTO|ERR_SSL)/.test(code))
    return `TLS handshake failed (${code})`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `the connection was closed by the server (${code})`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return `no answer within ${seconds} s (timeout)`;
  if (error instanceof APIConnectionError)
    return `cannot connect${code ? ` (${code})` : ''}: ${firstLine(error.message)}`;
  return firstLine(error instanceof Error ? error.message : String(error));
}

function causeCode(error: unknown): string | null {
  for (
    let current: unknown = error, depth = 0;
    current && depth < 6;
    current = (current as { cause?: unknown }).cause, depth += 1
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return null;
}

/** The first line of a message, at most 200 characters. */
export function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
