// `--batch` (issue #31): decision calls collected per model and sent as OpenAI-compatible Batch API jobs, in chunks,
// each job recorded in the run's batches.jsonl before anything waits on it, so a killed run re-attaches by id.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { toFile } from 'openai';
import type OpenAI from 'openai';
import { forEachJsonLine } from '../run-log/json-files.js';
import { openRunLogFile, type RunLogFile } from '../run-log/run-log-chain.js';
import { abortableSleep } from '#core/retry-policy.js';
import { raceAbort, readAnswerLines, type BatchAnswer } from './batch-answers.js';
import { BATCH_DEFAULTS, BATCH_LIMITS } from './batch-limits.js';
import { createRoundBarrier, type RoundBarrier } from './round-barrier.js';

/** The run log file that lists the submitted batch jobs (one chained line per job). */
const BATCHES_FILE = 'batches.jsonl';

/** One line of batches.jsonl: a job as it was submitted. */
export interface SubmittedBatch {
  type: 'batch-submitted';
  batchId: string;
  inputFileId: string;
  model: string;
  /** The `custom_id` of every request of the job (the draw's identity, see `OpenAIDecisionModel`). */
  customIds: string[];
  submittedAt: string;
}

/** Sends one chat-completions body through the Batch API and resolves with its line of the job's output. */
export interface BatchTransport {
  /**
   * A request recorded in an earlier job of the run is answered by that job (re-attached by id, never resubmitted)
   * unless that job already answered it with an error in this process, or in any process under `retryErrors` (then it
   * is a retry, sent in a new job).
   * `signal` stops waiting (a job already submitted stays recorded); nothing is submitted for a request whose
   * signal aborted before its chunk was sent.
   */
  send(customId: string, body: { model: string } & object, signal?: AbortSignal): Promise<BatchAnswer>;
  /**
   * Follow-up experiments (rounds): `join` counts a unit in before it starts (its return counts it out); while units
   * are joined, queued requests are sent once every joined unit waits in `send` or `waiting`, so all units' round-k
   * calls go into one job per chunk, never one per unit, however long the local work between rounds takes.
   */
  join: RoundBarrier['join'];
  /** Counts the caller as waiting at the round barrier while `work` runs (a call's budget reservation). */
  waiting: RoundBarrier['waiting'];
}

/** The parts of the official SDK the transport uses. */
export type BatchClient = Pick<OpenAI, 'files' | 'batches'>;

/** Settings of `createBatchTransport`. */
export interface BatchTransportSettings {
  client: BatchClient;
  /** The run directory: batches.jsonl lives there (its manifest must exist before the first job is submitted). */
  runDir: string;
  /** Requests per job (`--batch-size`, at most {@link BATCH_LIMITS}.requests). */
  size: number;
  /** Between two status polls of a job (`--batch-poll`). */
  pollMs: number;
  /** Bytes of input file per job (default {@link BATCH_LIMITS}.bytes). */
  maxBytes?: number;
  /** How long a chunk waits for more requests before it is sent (default {@link BATCH_DEFAULTS}.quietMs). */
  quietMs?: number;
  /**
   * While follow-up units are joined: how long a queue waits at the round barrier with no new request before it is
   * sent anyway, with a log line (default {@link BATCH_DEFAULTS}.stallMs). The round is then split over two jobs,
   * never lost or hung.
   */
  stallMs?: number;
  /**
   * `--retry-errors`: a request that a job recorded by an earlier process answered with an error is sent again in a
   * new job (its unit's error was recorded, and is what the user asks to retry); without it, that error is the answer.
   */
  retryErrors?: boolean;
  /** Injected for tests; resolves early when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** One line per job submitted and finished. */
  log?: (line: string) => void;
}

interface Waiting {
  customId: string;
  line: string;
  resolve: (answer: BatchAnswer) => void;
  signal: AbortSignal | undefined;
  /** Counts it out of the round barrier's waiting units (as soon as its answer is known). */
  answered: () => void;
}

/** A finished job: its answers by `custom_id`, and the error of a request it did not answer. */
interface Collected {
  answers: Map<string, BatchAnswer>;
  unanswered: string;
}

interface Queue {
  lines: Waiting[];
  bytes: number;
  timer: ReturnType<typeof setTimeout> | null;
}

const TERMINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);
/** Consecutive failed status polls of one job before its requests come back as errors (they stay recorded). */
const POLL_FAILURES = 5;

const failure = (error: unknown): { message: string; status?: number } => {
  const status = (error as { status?: unknown }).status;
  return {
    message: error instanceof Error ? error.message : String(error),
    ...(typeof status === 'number' ? { status } : {}),
  };
};

/**
 * Creates the transport of one run. Requests are queued per model; a queue is sent as one job when it reaches
 * `size` requests or `maxBytes`, or once no request joined it for `quietMs` (while follow-up units are joined: once
 * all of them wait, at the round barrier). Each job: `files.create` (purpose `batch`), `batches.create`
 * (`/v1/chat/completions`, 24 h), a line in batches.jsonl, then `batches.retrieve` every `pollMs` until it ends and
 * `files.content` of its output and error files.
 *
 * @example
 * const batch = createBatchTransport({ client: new OpenAI({ baseURL, apiKey }), runDir, size: 50_000, pollMs: 30_000 });
 * const answer = await batch.send(customId, { model: 'gpt-5-nano', messages, max_completion_tokens: 2000 });
 */
export function createBatchTransport(settings: BatchTransportSettings): BatchTransport {
  const maxBytes = settings.maxBytes ?? BATCH_LIMITS.bytes;
  const quietMs = settings.quietMs ?? BATCH_DEFAULTS.quietMs;
  const stallMs = settings.stallMs ?? BATCH_DEFAULTS.stallMs;
  const sleep = settings.sleep ?? abortableSleep;
  const queues = new Map<string, Queue>();
  /** custom_id → the job that holds it (every job of the run, read from batches.jsonl once). */
  let recorded: Map<string, string> | null = null;
  let log: RunLogFile | null = null;
  /** Requests an earlier job answered with an error in this process: their next send is a retry in a new job. */
  const retrying = new Set<string>();
  /** One collection per job, shared by its waiters; dropped on failure so the next waiter polls again. */
  const jobs = new Map<
    string,
    { answers: Promise<Collected>; waiters: number; stop: AbortController; answered: Set<() => void> }
  >();
  const barrier = createRoundBarrier(() => {
    for (const model of [...queues.keys()]) flush(model);
  });

  function recordedJobs(): Map<string, string> {
    if (recorded) return recorded;
    recorded = new Map();
    const path = join(settings.runDir, BATCHES_FILE);
    if (existsSync(path))
      forEachJsonLine<SubmittedBatch>(path, (row) => {
        if (row.type === 'batch-submitted') for (const id of row.customIds) recorded!.set(id, row.batchId);
      });
    return recorded;
  }

  function send(customId: string, body: { model: string } & object, signal?: AbortSignal): Promise<BatchAnswer> {
    const answered = barrier.wait();
    const answer = sendNow(customId, body, answered, signal);
    barrier.recheck();
    return answer.finally(answered);
  }

  async function sendNow(
    customId: string,
    body: { model: string } & object,
    answered: () => void,
    signal?: AbortSignal,
  ): Promise<BatchAnswer> {
    const batchId = recordedJobs().get(customId);
    if (batchId !== undefined && !retrying.has(customId)) {
      const answer = await attach(batchId, customId, signal, answered);
      if (answer.ok || answer.batchId === null) return answer;
      retrying.add(customId);
      if (!settings.retryErrors) return answer;
      // Its recorded job has answered (and counted it out of the round's waiting units): the retry waits anew.
      retrying.delete(customId);
      const again = barrier.wait();
      return enqueue(customId, body, again, signal).finally(again);
    }
    retrying.delete(customId);
    return enqueue(customId, body, answered, signal);
  }

  function enqueue(
    customId: string,
    body: { model: string } & object,
    answered: () => void,
    signal?: AbortSignal,
  ): Promise<BatchAnswer> {
    const line = JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body });
    const bytes = Buffer.byteLength(line) + 1;
    const model = body.model;
    let queue = queues.get(model);
    if (queue && queue.bytes + bytes > maxBytes) flush(model);
    queue = queues.get(model);
    if (!queue) {
      queue = { lines: [], bytes: 0, timer: null };
      queues.set(model, queue);
    }
    const current = queue;
    return new Promise<BatchAnswer>((resolve, reject) => {
      const waiting: Waiting = { customId, line, resolve, signal, answered };
      current.lines.push(waiting);
      current.bytes += bytes;
      // A request whose run stopped before its chunk was sent leaves the queue: nothing of it was submitted.
      signal?.addEventListener(
        'abort',
        () => {
          const at = current.lines.indexOf(waiting);
          if (at >= 0) {
            current.lines.splice(at, 1);
            current.bytes -= bytes;
          }
          reject(new Error('cancelled'));
        },
        { once: true },
      );
      if (current.timer) clearTimeout(current.timer);
      current.timer = null;
      if (current.lines.length >= settings.size) flush(model);
      else if (barrier.active) {
        current.timer = setTimeout(() => stalled(model), stallMs);
        barrier.recheck();
      } else current.timer = setTimeout(() => flush(model), quietMs);
    });
  }

  /** The submission in progress (upload, create, record), which the next one waits for. */
  let submitting: Promise<void> = Promise.resolve();

  /** A round that has not been released `stallMs` after its last queued request: its queue is sent as it is. */
  function stalled(model: string): void {
    const waiting = queues.get(model)?.lines.length ?? 0;
    settings.log?.(
      `batch: ${waiting} call(s) of ${model} waited ${stallMs / 1000} s at the round barrier with a unit of the round busy elsewhere; sent without it`,
    );
    flush(model);
  }

  function flush(model: string): void {
    const queue = queues.get(model);
    queues.delete(model);
    if (!queue) return;
    if (queue.timer) clearTimeout(queue.timer);
    if (queue.lines.length === 0) return;
    void submit(model, queue.lines);
  }

  async function submit(model: string, lines: Waiting[]): Promise<void> {
    // Jobs are submitted one at a time, in the order their chunks were cut (the provider and batches.jsonl list them
    // in queue order); only their answers are awaited together.
    const previous = submitting;
    let submitted!: () => void;
    submitting = new Promise<void>((resolve) => {
      submitted = resolve;
    });
    let batchId: string;
    try {
      await previous;
      // No signal on the submission itself: a job that exists must be recorded, or a resume could not find it.
      const file = await settings.client.files.create({
        file: await toFile(Buffer.from(lines.map((w) => `${w.line}\n`).join('')), 'batch.jsonl'),
        purpose: 'batch',
      });
      const batch = await settings.client.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
      batchId = batch.id;
      log ??= openRunLogFile(settings.runDir, BATCHES_FILE);
      const entry: SubmittedBatch = {
        type: 'batch-submitted',
        batchId,
        inputFileId: file.id,
        model,
        customIds: lines.map((w) => w.customId),
        submittedAt: new Date().toISOString(),
      };
      log.append(entry);
      for (const w of lines) recordedJobs().set(w.customId, batchId);
      settings.log?.(`batch ${batchId}: ${lines.length} requests of ${model} submitted`);
    } catch (error) {
      // Nothing was submitted (or the job could not be recorded): every request is an error, retried like any other.
      for (const w of lines) w.answered();
      for (const w of lines) w.resolve({ ok: false, ...failure(error), batchId: null });
      return;
    } finally {
      submitted();
    }
    await Promise.all(
      lines.map(async (w) => {
        const answer = await attach(batchId, w.customId, w.signal, w.answered).catch((error: unknown) => ({
          ok: false as const,
          ...failure(error),
          batchId: null,
        }));
        if (!answer.ok && answer.batchId !== null) retrying.add(w.customId);
        w.resolve(answer);
      }),
    );
  }

  /**
   * The answer of one request of a recorded job; the job is polled once for all its waiters, and once it ends all of
   * them leave the round barrier's waiting units at once, before any of them resumes.
   */
  async function attach(
    batchId: string,
    customId: string,
    signal?: AbortSignal,
    answered?: () => void,
  ): Promise<BatchAnswer> {
    let job = jobs.get(batchId);
    if (!job) {
      const stop = new AbortController();
      const answers = collect(batchId, stop.signal);
      const entry = { answers, waiters: 0, stop, answered: new Set<() => void>() };
      const ended = () => {
        for (const count of entry.answered) count();
        entry.answered.clear();
      };
      answers.then(ended, ended);
      job = entry;
      jobs.set(batchId, job);
      answers.catch(() => jobs.delete(batchId));
    }
    const current = job;
    if (answered) current.answered.add(answered);
    current.waiters += 1;
    try {
      const { answers, unanswered } = await raceAbort(current.answers, signal);
      return answers.get(customId) ?? { ok: false, message: unanswered, batchId };
    } catch (error) {
      if (signal?.aborted) throw error;
      return { ok: false, ...failure(error), batchId: null };
    } finally {
      current.waiters -= 1;
      // Nobody waits any more (the run stopped): stop polling; a later send re-attaches.
      if (current.waiters === 0 && signal?.aborted) {
        current.stop.abort();
        jobs.delete(batchId);
      }
    }
  }

  async function collect(batchId: string, stop: AbortSignal): Promise<Collected> {
    let failures = 0;
    for (;;) {
      if (stop.aborted) throw new Error('cancelled');
      let batch: Awaited<ReturnType<BatchClient['batches']['retrieve']>>;
      try {
        batch = await settings.client.batches.retrieve(batchId);
        failures = 0;
      } catch (error) {
        failures += 1;
        if (failures >= POLL_FAILURES) throw error;
        await sleep(settings.pollMs, stop);
        continue;
      }
      if (TERMINAL.has(batch.status)) {
        const answers = new Map<string, BatchAnswer>();
        for (const fileId of [batch.output_file_id, batch.error_file_id])
          if (fileId) readAnswerLines(await (await settings.client.files.content(fileId)).text(), batchId, answers);
        const why = batch.errors?.data?.map((e) => e.message).join('; ');
        settings.log?.(`batch ${batchId}: ${batch.status}, ${answers.size} lines`);
        // A job that ended without completing: every request it did not answer is an error naming how it ended.
        const unanswered =
          batch.status === 'completed'
            ? `batch ${batchId}: no output or error line for this request`
            : `batch ${batchId} ${batch.status}${why ? `: ${why}` : ''}`;
        return { answers, unanswered };
      }
      await sleep(settings.pollMs, stop);
    }
  }

  return { send, join: barrier.join, waiting: barrier.waiting };
}
