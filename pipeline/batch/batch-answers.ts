// The answers of a Batch API job (issue #31): its output and error files parsed into one answer per `custom_id`.
import type { ChatCompletion } from 'openai/resources/chat/completions';

/** How one request of a job ended: its chat completion, or its error line (or the job's end) as an error. */
export type BatchAnswer =
  | { ok: true; completion: ChatCompletion; requestId: string | null; batchId: string }
  | { ok: false; message: string; status?: number; batchId: string | null };

/** Parses an output or error file: one answer per `custom_id`. */
export function readAnswerLines(text: string, batchId: string, into: Map<string, BatchAnswer>): void {
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    const line = JSON.parse(raw) as {
      custom_id: string;
      response?: { status_code: number; request_id?: string; body: unknown } | null;
      error?: { code?: string; message?: string } | null;
    };
    const response = line.response;
    if (response && response.status_code === 200 && !line.error) {
      into.set(line.custom_id, {
        ok: true,
        completion: response.body as ChatCompletion,
        requestId: response.request_id ?? null,
        batchId,
      });
      continue;
    }
    const bodyError = (response?.body as { error?: { message?: string } } | undefined)?.error?.message;
    const message = line.error?.message ?? bodyError ?? `status ${response?.status_code ?? 'unknown'}`;
    into.set(line.custom_id, {
      ok: false,
      message: line.error?.code ? `${line.error.code}: ${message}` : message,
      ...(response?.status_code ? { status: response.status_code } : {}),
      batchId,
    });
  }
}

/** `promise`, or a rejection (`cancelled`) as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new Error('cancelled'));
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new Error('cancelled'));
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}
