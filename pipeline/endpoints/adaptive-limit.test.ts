// The adaptive call limit with an injected clock and timer: AIMD on 429s once per burst, growth on success, never
// above -j, pacing by what the rate-limit headers leave, Retry-After; and the headers' formats. No timing is asserted.
import { describe, expect, it } from 'vitest';
import { type CallLimit, type CallPermit, createAdaptiveLimit, createCallLimits } from './adaptive-limit.js';
import { parseRateLimitHeaders, parseResetMs } from './rate-limit-headers.js';

/** A manual clock: `advance` fires the timers that come due, in order. */
function manualClock() {
  let t = 0;
  let timers: { at: number; wake: () => void }[] = [];
  return {
    now: () => t,
    schedule: (ms: number, wake: () => void) => void timers.push({ at: t + ms, wake }),
    advance(ms: number) {
      t += ms;
      const due = timers.filter((timer) => timer.at <= t).sort((a, b) => a.at - b.at);
      timers = timers.filter((timer) => timer.at > t);
      for (const timer of due) timer.wake();
    },
  };
}

/** Asks for `n` permits and returns the ones granted after the microtasks settle. */
async function ask(limit: CallLimit, n: number): Promise<{ granted: CallPermit[]; pending: Promise<CallPermit>[] }> {
  const granted: CallPermit[] = [];
  const pending = Array.from({ length: n }, () =>
    limit.acquire().then((permit) => {
      granted.push(permit);
      return permit;
    }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return { granted, pending };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const ok = { kind: 'ok' } as const;
const tooMany = (headers: Record<string, string> = {}) =>
  ({ kind: 'rate-limited', headers: new Headers(headers) }) as const;

describe('the adaptive call limit', () => {
  it('starts at min(-j, 4), doubles per window of successes until -j, and never goes above -j', async () => {
    const clock = manualClock();
    const limit = createAdaptiveLimit({ max: 6, ...clock });
    const first = await ask(limit, 20);
    expect(first.granted).toHaveLength(4);
    for (const permit of first.granted.splice(0)) permit.release(ok);
    await settle();
    expect(limit.state().window).toBe(6); // 4 + 4 successes, capped at -j
    expect(limit.state().inFlight).toBe(6);
    for (let round = 0; round < 5; round += 1) {
      for (const permit of first.granted.splice(0)) permit.release(ok);
      await settle();
      expect(limit.state().window).toBeLessThanOrEqual(6);
      expect(limit.state().inFlight).toBeLessThanOrEqual(6);
    }
    expect(limit.state().maxInFlight).toBe(6);
    expect(createAdaptiveLimit({ max: 2 }).state().window).toBe(2);
  });

  it('halves the window on a 429 once per burst: 429s to calls sent before the decrease do not decrease again', async () => {
    const clock = manualClock();
    const limit = createAdaptiveLimit({ max: 16, initial: 16, ...clock });
    const { granted } = await ask(limit, 40);
    expect(granted).toHaveLength(16);
    for (const permit of granted.splice(0, 5)) permit.release(tooMany());
    expect(limit.state()).toMatchObject({ window: 8, decreases: 1, rateLimited: 5 });
    // A call sent after the decrease that is answered 429 is a new burst.
    for (const permit of granted.splice(0)) permit.release(ok);
    await settle();
    const later = granted.splice(0);
    expect(later.length).toBeGreaterThan(0);
    later[0]!.release(tooMany());
    expect(limit.state().decreases).toBe(2);
    expect(limit.state().window).toBeLessThan(8);
    expect(limit.state().window).toBeGreaterThanOrEqual(1);
  });

  it('after a decrease grows by about one per window of successes (additive), not by one per success', async () => {
    const clock = manualClock();
    const limit = createAdaptiveLimit({ max: 64, initial: 8, ...clock });
    const { granted } = await ask(limit, 200);
    granted.shift()!.release(tooMany());
    expect(limit.state().window).toBe(4);
    for (const permit of granted.splice(0)) permit.release(ok); // the 7 others of the first window
    await settle();
    const before = limit.state().window;
    for (let i = 0; i < 8; i += 1) {
      for (const permit of granted.splice(0)) permit.release(ok);
      await settle();
    }
    const grown = limit.state().window - before;
    expect(grown).toBeGreaterThan(1);
    expect(grown).toBeLessThan(8);
  });

  it('waits out Retry-After before sending anything after a 429', async () => {
    const clock = manualClock();
    const limit = createAdaptiveLimit({ max: 8, initial: 2, ...clock });
    const { granted } = await ask(limit, 5);
    expect(granted).toHaveLength(2);
    granted.shift()!.release(tooMany({ 'retry-after-ms': '500' }));
    granted.shift()!.release(ok);
    await settle();
    expect(granted).toHaveLength(0);
    clock.advance(499);
    await settle();
    expect(granted).toHaveLength(0);
    clock.advance(1);
    await settle();
    expect(granted.length).toBeGreaterThan(0);
  });

  it('does not send while the remaining requests (less those in flight) are spent, until their reset', async () => {
    const clock = manualClock();
    const limit = createAdaptiveLimit({ max: 8, initial: 4, ...clock });
    const { granted } = await ask(limit, 10);
    expect(granted).toHaveLength(4);
    // The server has 3 left; 3 calls are still in flight: nothing more may go until the reset.
    granted.shift()!.release({
      kind: 'ok',
      headers: new Headers({ 'x-ratelimit-remaining-requests': '3', 'x-ratelimit-reset-requests': '2s' }),
    });
    await settle();
    expect(granted).toHaveLength(3);
    clock.advance(1999);
    await settle();
    expect(granted).toHaveLength(3);
    clock.advance(1);
    await settle();
    expect(granted.length).toBeGreaterThan(3);
  });

  it('with the limit known, each answered call holds its share until its own reset (tokens at the calls mean)', async () => {
    const clock = manualClock();
    const limit = createAdaptiveLimit({ max: 64, initial: 1, ...clock });
    const { granted } = await ask(limit, 30);
    const answer = (tokens: number) =>
      granted.shift()!.release({
        kind: 'ok',
        tokens,
        headers: new Headers({
          'x-ratelimit-limit-tokens': '1000',
          'x-ratelimit-remaining-tokens': '0',
          'x-ratelimit-reset-tokens': '1s',
        }),
      });
    answer(100);
    await settle();
    // 100 held, 100 per call: 9 calls fit (and the window, doubling, allows 2).
    expect(granted).toHaveLength(2);
    answer(100);
    answer(100);
    await settle();
    for (let i = 0; i < 6; i += 1) {
      for (const permit of granted.splice(0)) permit.release({ kind: 'ok', tokens: 100 });
      await settle();
    }
    // 3 holds of 100 until t = 1 s, and what is in flight at 100 each: never more than 7 in flight.
    expect(limit.state().inFlight).toBeLessThanOrEqual(7);
    expect(limit.state().maxInFlight).toBeLessThanOrEqual(7);
  });

  it('limits are per base URL and model', () => {
    const limits = createCallLimits({ max: 4 });
    expect(limits.of('http://a/v1', 'm')).toBe(limits.of('http://a/v1', 'm'));
    expect(limits.of('http://a/v1', 'm')).not.toBe(limits.of('http://b/v1', 'm'));
    expect(limits.of('http://a/v1', 'm')).not.toBe(limits.of('http://a/v1', 'n'));
  });

  it('a stop while waiting rejects the waiting call', async () => {
    const limit = createAdaptiveLimit({ max: 1, ...manualClock() });
    await limit.acquire();
    const stop = new AbortController();
    const waiting = limit.acquire(stop.signal);
    stop.abort();
    await expect(waiting).rejects.toThrow(/cancelled while waiting for a call slot/);
  });
});

describe('rate-limit headers', () => {
  it('reads OpenAI durations, bare seconds, epoch seconds and dates as ms from now', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseResetMs('1s', now)).toBe(1000);
    expect(parseResetMs('6m0s', now)).toBe(360_000);
    expect(parseResetMs('12ms', now)).toBe(12);
    expect(parseResetMs('1h2m3.5s', now)).toBe(3_723_500);
    expect(parseResetMs('0.5', now)).toBe(500);
    expect(parseResetMs(String(now / 1000 + 30), now)).toBe(30_000);
    expect(parseResetMs('Wed, 01 Jan 2025 00:00:02 GMT', now)).toBe(2000);
    expect(parseResetMs('soon', now)).toBeUndefined();
    expect(parseResetMs('1s soon', now)).toBeUndefined();
  });

  it("reads OpenAI's and LiteLLM's names, and Retry-After", () => {
    const said = parseRateLimitHeaders(
      new Headers({
        'llm_provider-x-ratelimit-limit-requests': '60',
        'x-litellm-key-remaining-requests-gpt-5-nano': '7',
        'x-ratelimit-limit-tokens': '-1',
        'x-ratelimit-remaining-tokens': '900',
        'x-ratelimit-reset-tokens': '6m0s',
        'retry-after': '2',
      }),
      0,
      'gpt-5-nano',
    );
    expect(said).toEqual({
      requests: { limit: 60, remaining: 7 },
      tokens: { remaining: 900, resetMs: 360_000 },
      retryAfterMs: 2000,
    });
    expect(parseRateLimitHeaders(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), 0).retryAfterMs).toBe(
      250,
    );
  });
});
