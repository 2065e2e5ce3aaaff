// The Batch API transport on its own against the local batch server: chunks by bytes, a request whose run stopped
// before its chunk was sent is never submitted, a recorded job is re-attached by a new transport, and the round
// barrier of follow-up units sends a round once every joined unit waits, however long one takes to get there.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startBatchApiServer, type BatchApiServer } from '../test-support/batch-api-server.js';
import { createBatchTransport } from './batch-transport.js';

let server: BatchApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A run directory with the manifest the chained batches.jsonl binds to. */
function runDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-batch-transport-'));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ runId: 'batch-transport-test' }));
  return dir;
}

const body = (n: number) => ({ model: 'gpt-5-nano', messages: [{ role: 'user', content: `question ${n}` }] });
const transportOn = (server: BatchApiServer, dir: string, settings: { maxBytes?: number; quietMs?: number } = {}) =>
  createBatchTransport({
    client: new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 0 }),
    runDir: dir,
    size: 100,
    pollMs: 1,
    quietMs: 20,
    ...settings,
  });

describe('createBatchTransport', () => {
  it('cuts a chunk before it passes maxBytes, and answers every request from its own line', async () => {
    server = await startBatchApiServer((request) => ({ content: `answer to ${request.body.messages![0]!.content}` }));
    const line = JSON.stringify({ custom_id: 'id-0', method: 'POST', url: '/v1/chat/completions', body: body(0) });
    // Room for two lines per job, not three.
    const transport = transportOn(server, runDir(), { maxBytes: 2 * (line.length + 1) + 1 });
    const answers = await Promise.all([0, 1, 2, 3, 4].map((n) => transport.send(`id-${n}`, body(n))));
    expect(server.submissions.map((job) => job.lines.length)).toEqual([2, 2, 1]);
    answers.forEach((answer, n) => {
      expect(answer.ok).toBe(true);
      if (answer.ok) expect(answer.completion.choices[0]!.message.content).toBe(`answer to question ${n}`);
    });
  });

  it('never submits a request whose signal aborted before its chunk was sent; a new transport re-attaches by id', async () => {
    let holding = true;
    server = await startBatchApiServer(() => ({ content: 'ok' }), { hold: () => holding });
    const dir = runDir();
    const first = transportOn(server, dir);
    const stop = new AbortController();
    const cut = first.send('cut', body(0), stop.signal);
    stop.abort();
    await expect(cut).rejects.toThrow('cancelled');
    const kept = new AbortController();
    const waiting = first.send('kept', body(1), kept.signal);
    // Submitted and recorded, then the run stops while the job is in progress.
    await server.retrieved(2);
    kept.abort();
    await expect(waiting).rejects.toThrow('cancelled');
    expect(server.submissions.map((job) => job.lines.map((l) => l.custom_id))).toEqual([['kept']]);

    holding = false;
    const second = transportOn(server, dir);
    const answer = await second.send('kept', body(1));
    expect(answer).toMatchObject({ ok: true, batchId: server.submissions[0]!.batchId });
    expect(server.submissions).toHaveLength(1);
  });

  it('round barrier: a round waits for its slowest joined unit (past the quiet time), not one job per unit', async () => {
    server = await startBatchApiServer(() => ({ content: 'ok' }));
    // Unjoined (the grid), a request that comes after the quiet time (its chunk was sent) goes into a job of its own ...
    const grid = transportOn(server, runDir());
    await Promise.all([grid.send('g-0', body(0)), server.submitted(1).then(() => grid.send('g-1', body(1)))]);
    expect(server.submissions.map((job) => job.lines.length)).toEqual([1, 1]);
    // ... joined, the same two requests are one job, sent once the second unit waits too.
    const rounds = transportOn(server, runDir());
    const [leaveA, leaveB] = [rounds.join(), rounds.join()];
    const unitA = rounds.send('r-0', body(0)).finally(leaveA);
    // Time passing is what is tested: five quiet times (20 ms) go by and the joined round is still not sent.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.submissions).toHaveLength(2);
    const unitB = rounds.send('r-1', body(1)).finally(leaveB);
    expect((await Promise.all([unitA, unitB])).every((answer) => answer.ok)).toBe(true);
    expect(server.submissions.slice(2).map((job) => job.lines.map((l) => l.custom_id))).toEqual([['r-0', 'r-1']]);
  });

  it('round barrier: a unit that ends without a call, or waits in `waiting` (its budget), releases the round', async () => {
    server = await startBatchApiServer(() => ({ content: 'ok' }));
    const transport = transportOn(server, runDir());
    const [leaveA, leaveB, leaveC] = [transport.join(), transport.join(), transport.join()];
    const unitA = transport.send('a', body(0)).finally(leaveA);
    // C's reservation waits for A's reply (the budget holds the money A's call may cost): it counts as waiting.
    const unitC = transport
      .waiting(() => unitA)
      .then(() => transport.send('c', body(2)))
      .finally(leaveC);
    // Time passing is what is tested: three quiet times (20 ms) go by and A's round waits for B all the same.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(server.submissions).toHaveLength(0);
    leaveB();
    expect((await Promise.all([unitA, unitC])).every((answer) => answer.ok)).toBe(true);
    expect(server.submissions.map((job) => job.lines.map((l) => l.custom_id))).toEqual([['a'], ['c']]);
  });

  it('round barrier: a reservation that fits at once does not count as waiting, so its call joins the round', async () => {
    server = await startBatchApiServer(() => ({ content: 'ok' }));
    const transport = transportOn(server, runDir());
    const [leaveA, leaveB] = [transport.join(), transport.join()];
    const unitA = transport.send('a', body(0)).finally(leaveA);
    // B's reservation is granted at once (the budget has room): counted as waiting, it would send A's round alone.
    const unitB = transport
      .waiting(() => Promise.resolve())
      .then(() => transport.send('b', body(1)))
      .finally(leaveB);
    expect((await Promise.all([unitA, unitB])).every((answer) => answer.ok)).toBe(true);
    expect(server.submissions.map((job) => job.lines.map((l) => l.custom_id))).toEqual([['a', 'b']]);
  });
});
