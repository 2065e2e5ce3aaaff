// The endpoint row's reference loops: what a call costs on this machine without the pipeline (node:http, the SDK).
import { Agent, request as httpRequest } from 'node:http';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { scopedSignal } from '../models/call-signal.js';
import { OPENAI_DECISION_DEFAULTS } from '../models/openai-decision-model.js';

/** Runs `calls` calls of `call` from `concurrency` loops that each start the next call when theirs returns. */
async function inLoops(concurrency: number, calls: number, call: () => Promise<void>): Promise<void> {
  let started = 0;
  const loop = async () => {
    while (started < calls) {
      started += 1;
      await call();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
}

/**
 * The floor: a minimal node:http client (a keep-alive agent, the body read and dropped) posting `body` to the chat
 * endpoint; what HTTP itself costs per call here.
 */
export async function floorLoop(baseURL: string, body: string, concurrency: number, calls: number): Promise<void> {
  const agent = new Agent({ keepAlive: true });
  const url = new URL(`${baseURL}/chat/completions`);
  const call = () =>
    new Promise<void>((resolve, reject) => {
      const outgoing = httpRequest(
        url,
        { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (incoming) => {
          if (incoming.statusCode !== 200) reject(new Error(`bench floor: HTTP ${incoming.statusCode}`));
          incoming.resume().on('end', resolve).on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  try {
    await inLoops(concurrency, calls, call);
  } finally {
    agent.destroy();
  }
}

/**
 * The bare SDK: the official client with the pipeline's settings (no SDK retries, the per-attempt timeout, a per-call
 * signal under a run-wide one, `withResponse()`), sending `body` parsed; nothing else per call.
 */
export async function sdkLoop(baseURL: string, body: string, concurrency: number, calls: number): Promise<void> {
  const client = new OpenAI({
    baseURL,
    apiKey: 'sk-bench-local',
    maxRetries: 0,
    timeout: OPENAI_DECISION_DEFAULTS.timeoutMs,
  });
  const params = JSON.parse(body) as ChatCompletionCreateParamsNonStreaming;
  const run = new AbortController();
  await inLoops(concurrency, calls, async () => {
    const scoped = scopedSignal(run.signal);
    try {
      await client.chat.completions.create(params, { signal: scoped.signal }).withResponse();
    } finally {
      scoped.release();
    }
  });
}
