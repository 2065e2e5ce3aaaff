// The bench's rate-limited OpenAI-compatible endpoint, run as its own process: a sliding one-second window of
// requests or of tokens, 429 with Retry-After beyond it, and OpenAI's x-ratelimit-* headers on every answer.
//
// `node --import tsx pipeline/bench/rate-limit-server.ts <requests|tokens> <limit per second> <latencyMs>` prints
// `{"baseURL": …}` on its first stdout line, then answers one stdin line per command: `reset` and `stats` (a
// `RateLimitStats` JSON line). It exits when its stdin ends.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isEntryPoint } from '#core/entry-point.js';
import { scriptedDecision } from './scripted-decision.js';
import { answerControlLines } from './server-control.js';

/** What the server counted since the last `reset`, on its own clock. */
export interface RateLimitStats {
  /** Chat calls admitted (answered 200). */
  accepted: number;
  /** Chat calls answered 429. */
  rateLimited: number;
  /** Tokens of the admitted calls (prompt + completion, as their usage says). */
  acceptedTokens: number;
  /** From the first call's arrival to the last admitted call's arrival, ms. */
  spanMs: number;
  /** Calls whose prompt allowed no action. */
  unscripted: number;
}

/** What one call costs against the limit, as the server counts it (about four characters per token). */
const tokensOf = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

/** Go-style durations as OpenAI writes them: `12ms`, `1s`, `1.25s`. */
const duration = (ms: number): string => (ms < 1000 ? `${Math.max(0, Math.ceil(ms))}ms` : `${ms / 1000}s`);

const WINDOW_MS = 1000;

/** Serves on 127.0.0.1: at most `limit` requests (or tokens) admitted in any sliding second, `latencyMs` per answer. */
async function serveRateLimited(
  kind: 'requests' | 'tokens',
  limit: number,
  latencyMs: number,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<void> {
  let admitted: { at: number; cost: number }[] = [];
  let stats: RateLimitStats = { accepted: 0, rateLimited: 0, acceptedTokens: 0, spanMs: 0, unscripted: 0 };
  let first: number | null = null;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ object: 'list', data: [{ id: '*', object: 'model' }] }));
        return;
      }
      const now = performance.now();
      first ??= now;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        model?: unknown;
        messages?: { role: string; content: string }[];
      };
      const messages = body.messages ?? [];
      const content = scriptedDecision(messages, stats.accepted) ?? '{"action": "NONE"}';
      const promptTokens = tokensOf(messages.map((m) => m.content).join('\n'));
      const completionTokens = tokensOf(content);
      const cost = kind === 'requests' ? 1 : promptTokens + completionTokens;
      admitted = admitted.filter((entry) => entry.at > now - WINDOW_MS);
      const used = admitted.reduce((sum, entry) => sum + entry.cost, 0);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      headers[`x-ratelimit-limit-${kind}`] = String(limit);
      if (used + cost > limit) {
        // Retry-After: until enough of the window has slid out for this call.
        let freed = limit - used;
        let at = now;
        for (const entry of admitted) {
          if (freed >= cost) break;
          freed += entry.cost;
          at = entry.at + WINDOW_MS;
        }
        stats.rateLimited += 1;
        headers[`x-ratelimit-remaining-${kind}`] = String(limit - used);
        headers[`x-ratelimit-reset-${kind}`] = duration((admitted.at(-1)?.at ?? now) + WINDOW_MS - now);
        headers['retry-after-ms'] = String(Math.ceil(at - now));
        headers['retry-after'] = String(Math.ceil((at - now) / 1000));
        const error = { error: { message: `Rate limit reached: ${limit} ${kind} per second`, type: 'rate_limit' } };
        setTimeout(() => response.writeHead(429, headers).end(JSON.stringify(error)), latencyMs);
        return;
      }
      admitted.push({ at: now, cost });
      stats.accepted += 1;
      stats.acceptedTokens += promptTokens + completionTokens;
      stats.spanMs = now - first;
      if (scriptedDecision(messages, 0) === null) stats.unscripted += 1;
      headers[`x-ratelimit-remaining-${kind}`] = String(limit - used - cost);
      // OpenAI's reset: until the limit is back to its full size, i.e. until this call leaves the window.
      headers[`x-ratelimit-reset-${kind}`] = duration(WINDOW_MS);
      const reply = JSON.stringify({
        id: `chatcmpl-rate-${stats.accepted}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: typeof body.model === 'string' ? body.model : 'unknown',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: completionTokens,
          total_tokens: promptTokens + completionTokens,
        },
      });
      setTimeout(() => response.writeHead(200, headers).end(reply), latencyMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  output.write(`${JSON.stringify({ baseURL: `http://127.0.0.1:${port}/v1` })}\n`);
  answerControlLines(input, output, server, {
    reset: () => {
      stats = { accepted: 0, rateLimited: 0, acceptedTokens: 0, spanMs: 0, unscripted: 0 };
      admitted = [];
      first = null;
    },
    stats: () => stats,
  });
}

if (isEntryPoint(import.meta.url)) {
  const [kind, limit, latencyMs] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
  if ((kind !== 'requests' && kind !== 'tokens') || !(limit > 0) || !(latencyMs >= 0)) {
    process.stderr.write(
      `rate-limit-server: usage: <requests|tokens> <limit per second > 0> <latencyMs ≥ 0>, got ${process.argv.slice(2).join(' ')}\n`,
    );
    process.exit(2);
  }
  void serveRateLimited(kind, limit, latencyMs, process.stdin, process.stdout);
}
