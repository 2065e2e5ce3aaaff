// A local OpenAI-compatible server with the Batch API for tests (issue #31): files upload and content, batches
// create and retrieve (validating → in_progress → completed), output and error files; chat completions as usual.
import {
  completionBody,
  startOpenAICompatibleServer,
  type ReceivedRequest,
  type ScriptedReply,
  type TestServer,
} from './openai-compatible-server.js';
import { createEventCount } from './wait-for-event.js';

/** One batch job as the server holds it. */
interface Job {
  id: string;
  inputFileId: string;
  endpoint: string;
  status: 'validating' | 'in_progress' | 'completed' | 'failed' | 'expired' | 'cancelled';
  outputFileId: string | null;
  errorFileId: string | null;
  retrieves: number;
}

/** The server, with what it saw of the Batch API. */
export interface BatchApiServer extends TestServer {
  /** Every `POST /batches`, in order: the requests (bodies with their custom_id) of each job. */
  submissions: { batchId: string; lines: { custom_id: string; body: ReceivedRequest['body'] }[] }[];
  /** `GET /batches/{id}` calls. */
  retrieves: string[];
  /** Resolves once `n` jobs were submitted (`submissions` holds them). */
  submitted(n: number): Promise<void>;
  /** Resolves once `n` retrieves were answered (`retrieves` holds them). */
  retrieved(n: number): Promise<void>;
  /** Chat-completions requests (the synchronous path). */
  chatCompletions(): ReceivedRequest[];
}

/** Settings of the batch server. */
export interface BatchApiServerOptions {
  /** While true for a job, every retrieve answers `in_progress` (a run killed between submit and collect). */
  hold?: (batchId: string) => boolean;
  /** A job ends with this status instead of `completed` (its unanswered requests are then errors). */
  endAs?: (batchId: string) => Job['status'] | undefined;
}

const json = (status: number, value: unknown) => ({ status, body: JSON.stringify(value) });

/** The content of the `file` part of a multipart/form-data body. */
function multipartFile(raw: string, contentType: string | undefined): string {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType ?? '');
  if (!boundary) throw new Error('not multipart');
  for (const part of raw.split(`--${boundary[1] ?? boundary[2]}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0 || !/name="file"/.test(part.slice(0, split))) continue;
    return part.slice(split + 4).replace(/\r\n$/, '');
  }
  throw new Error('no file part');
}

/**
 * Starts the server. `reply` answers every request, synchronous or in a job (a `{status, error}` reply becomes the
 * request's line in the job's error file). A job is `validating` on create, `in_progress` at its first retrieve, and
 * ends at the next retrieve unless `hold` keeps it in progress.
 *
 * @example const server = await startBatchApiServer(() => ({ content: '{"action": "REJECT"}' }));
 */
export async function startBatchApiServer(
  reply: (request: ReceivedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>,
  options: BatchApiServerOptions = {},
): Promise<BatchApiServer> {
  const files = new Map<string, string>();
  const jobs = new Map<string, Job>();
  const submissions: BatchApiServer['submissions'] = [];
  const retrieves: string[] = [];
  const submittedCount = createEventCount();
  const retrievedCount = createEventCount();
  let answered = 0;
  const view = (job: Job) => ({
    id: job.id,
    object: 'batch',
    endpoint: job.endpoint,
    input_file_id: job.inputFileId,
    completion_window: '24h',
    status: job.status,
    output_file_id: job.outputFileId,
    error_file_id: job.errorFileId,
    created_at: 1_700_000_000,
    request_counts: { total: 0, completed: 0, failed: 0 },
  });
  const newFile = (content: string) => {
    const id = `file-${files.size + 1}`;
    files.set(id, content);
    return id;
  };

  async function finish(job: Job): Promise<void> {
    const ended = options.endAs?.(job.id) ?? 'completed';
    const output: string[] = [];
    const errors: string[] = [];
    if (ended === 'completed')
      for (const text of files.get(job.inputFileId)!.split('\n').filter(Boolean)) {
        const line = JSON.parse(text) as { custom_id: string; body: ReceivedRequest['body'] };
        const index = answered++;
        const request = { path: '/v1/chat/completions', headers: {}, body: line.body, raw: JSON.stringify(line.body) };
        const scripted = await reply(request, index);
        const id = `batch_req_${index}`;
        if ('status' in scripted)
          errors.push(
            JSON.stringify({
              id,
              custom_id: line.custom_id,
              response: { status_code: scripted.status, request_id: `req_${index}`, body: { error: scripted.error } },
              error: null,
            }),
          );
        else
          output.push(
            JSON.stringify({
              id,
              custom_id: line.custom_id,
              response: {
                status_code: 200,
                request_id: `req_${index}`,
                body: completionBody(scripted, line.body.model, index),
              },
              error: null,
            }),
          );
      }
    job.outputFileId = output.length > 0 ? newFile(`${output.join('\n')}\n`) : null;
    job.errorFileId = errors.length > 0 ? newFile(`${errors.join('\n')}\n`) : null;
    job.status = ended;
  }

  const server = await startOpenAICompatibleServer(reply, {
    routes: async ({ method, path, headers, raw }) => {
      const route = path.replace(/^\/v1/, '').replace(/\?.*$/, '');
      if (method === 'POST' && route === '/files') {
        const content = multipartFile(raw, headers['content-type']);
        const id = newFile(content);
        return json(200, {
          id,
          object: 'file',
          bytes: Buffer.byteLength(content),
          created_at: 1_700_000_000,
          filename: 'batch.jsonl',
          purpose: 'batch',
          status: 'processed',
        });
      }
      const content = /^\/files\/([^/]+)\/content$/.exec(route);
      if (method === 'GET' && content) {
        const file = files.get(content[1]!);
        return file === undefined
          ? json(404, { error: { message: 'no such file' } })
          : { status: 200, body: file, contentType: 'application/octet-stream' };
      }
      if (method === 'POST' && route === '/batches') {
        const body = JSON.parse(raw) as { input_file_id: string; endpoint: string };
        const input = files.get(body.input_file_id);
        if (input === undefined) return json(400, { error: { message: 'no such input file' } });
        const id = `batch_${jobs.size + 1}`;
        const job: Job = {
          id,
          inputFileId: body.input_file_id,
          endpoint: body.endpoint,
          status: 'validating',
          outputFileId: null,
          errorFileId: null,
          retrieves: 0,
        };
        jobs.set(id, job);
        submissions.push({
          batchId: id,
          lines: input
            .split('\n')
            .filter(Boolean)
            .map((text) => JSON.parse(text) as { custom_id: string; body: ReceivedRequest['body'] }),
        });
        submittedCount.add();
        return json(200, view(job));
      }
      const retrieve = /^\/batches\/([^/]+)$/.exec(route);
      if (method === 'GET' && retrieve) {
        const job = jobs.get(retrieve[1]!);
        if (!job) return json(404, { error: { message: 'no such batch' } });
        retrieves.push(job.id);
        job.retrieves += 1;
        if (job.status === 'validating') job.status = 'in_progress';
        else if (job.status === 'in_progress' && !options.hold?.(job.id)) await finish(job);
        const answer = json(200, view(job));
        retrievedCount.add();
        return answer;
      }
      return null;
    },
  });
  return {
    ...server,
    submissions,
    retrieves,
    submitted: (n) => submittedCount.reached(n),
    retrieved: (n) => retrievedCount.reached(n),
    chatCompletions: () => server.requests.filter((r) => r.path.endsWith('/chat/completions')),
  };
}
