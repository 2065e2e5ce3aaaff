// The per-call signal: follows its parent, and lets go of it, so a run-wide signal does not collect a listener per call.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { scopedSignal } from './call-signal.js';

describe('scopedSignal', () => {
  it('aborts the calls in flight when the parent aborts, with its reason, and not the released ones', () => {
    const parent = new AbortController();
    const done = scopedSignal(parent.signal);
    const inFlight = [scopedSignal(parent.signal), scopedSignal(parent.signal)];
    done.release();
    parent.abort(new Error('SIGINT'));
    expect(inFlight.map((scoped) => scoped.signal!.aborted)).toEqual([true, true]);
    expect((inFlight[0]!.signal!.reason as Error).message).toBe('SIGINT');
    expect(done.signal!.aborted).toBe(false);
  });

  it('is aborted at once under an aborted parent, and absent without a parent', () => {
    const parent = new AbortController();
    parent.abort('stop');
    expect(scopedSignal(parent.signal).signal).toMatchObject({ aborted: true, reason: 'stop' });
    expect(scopedSignal(undefined).signal).toBeUndefined();
  });

  it('puts one listener on the parent however many calls are in flight or done', () => {
    const parent = new AbortController();
    const scoped = Array.from({ length: 50 }, () => scopedSignal(parent.signal));
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    for (const call of scoped) call.release();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
  });
});
