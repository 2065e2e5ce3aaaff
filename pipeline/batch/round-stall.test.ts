// The round barrier's way out: a joined follow-up unit that never reaches a call (busy in a store, a lock, a hang)
// must not hold its round's queued calls forever. After `stallMs` with no new request the queue is sent as it is,
// with a log line; the busy unit's call, when it comes, goes into a job of its own.
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

function runDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-round-stall-'));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ runId: 'round-stall-test' }));
  return dir;
}

/** A transport of the local batch server whose rounds stall after `stallMs`, logging into `log`. */
const transportOn = (server: BatchApiServer, stallMs: number, log: string[]) =>
  createBatchTransport({
    client: new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 0 }),
    runDir: runDir(),
    size: 100,
    pollMs: 1,
    quietMs: 20,
    stallMs,
    log: (line) => log.push(line),
  });

const body = (n: number) => ({ model: 'gpt-5-nano', messages: [{ role: 'user', content: `question ${n}` }] });

describe('the round barrier under --batch', () => {
  it('sends a round whose other unit never calls after stallMs, says so, and batches that unit later on its own', async () => {
    server = await startBatchApiServer(() => ({ content: 'ok' }));
    const log: string[] = [];
    const transport = transportOn(server, 200, log);
    const [leaveA, leaveB] = [transport.join(), transport.join()];
    // Unit A calls; unit B is busy elsewhere and has not called. Before the fallback this never returned.
    const a = await transport.send('a-0', body(0));
    expect(a.ok).toBe(true);
    expect(server.submissions.map((job) => job.lines.map((line) => line.custom_id))).toEqual([['a-0']]);
    expect(log.filter((line) => line.includes('waited 0.2 s at the round barrier'))).toEqual([
      'batch: 1 call(s) of gpt-5-nano waited 0.2 s at the round barrier with a unit of the round busy elsewhere; sent without it',
    ]);
    leaveA();
    // B's call, alone at the barrier now, goes at once (every joined unit waits): no second stall.
    const b = await transport.send('b-0', body(1));
    expect(b.ok).toBe(true);
    expect(server.submissions.map((job) => job.lines.map((line) => line.custom_id))).toEqual([['a-0'], ['b-0']]);
    expect(log.filter((line) => line.includes('round barrier'))).toHaveLength(1);
    leaveB();
  });

  it('a round whose units all call within stallMs is one job, and no stall is logged', async () => {
    server = await startBatchApiServer(() => ({ content: 'ok' }));
    const log: string[] = [];
    const transport = transportOn(server, 60_000, log);
    const leaves = [transport.join(), transport.join()];
    const answers = await Promise.all([transport.send('a-0', body(0)), transport.send('b-0', body(1))]);
    expect(answers.every((answer) => answer.ok)).toBe(true);
    expect(server.submissions.map((job) => job.lines.length)).toEqual([2]);
    expect(log.some((line) => line.includes('round barrier'))).toBe(false);
    for (const leave of leaves) leave();
  });
});
