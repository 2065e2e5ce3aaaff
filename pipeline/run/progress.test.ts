// Progress: what each style prints, when, and the numbers in the line.
import { describe, expect, it } from 'vitest';
import { createProgress, formatDuration, formatProgress, progressStyle, type ProgressCounts } from './progress.js';
import { createRunControl } from './run-control.js';

const counts = (done: number, extra: Partial<ProgressCounts> = {}): ProgressCounts => ({
  done,
  total: 100,
  ran: done,
  errors: 0,
  parseFailures: 0,
  cacheHits: 0,
  calls: done,
  costUsd: 0,
  ...extra,
});

describe('progress', () => {
  it('chooses live on a TTY, plain lines under CI or a pipe, nothing with --quiet', () => {
    expect(progressStyle({ quiet: false, isTTY: true, env: {} })).toBe('live');
    expect(progressStyle({ quiet: false, isTTY: true, env: { CI: 'true' } })).toBe('lines');
    expect(progressStyle({ quiet: false, isTTY: undefined, env: {} })).toBe('lines');
    expect(progressStyle({ quiet: true, isTTY: true, env: {} })).toBe('quiet');
  });

  it('the line carries done/total, rate from this invocation only, ETA, errors, parse failures, cache hit rate and spend', () => {
    // 40 done of which 20 were skipped as done on resume: the rate counts the 20 that ran in 10 s.
    const line = formatProgress(
      counts(40, { ran: 20, errors: 2, parseFailures: 3, cacheHits: 5, calls: 20, costUsd: 0.01234 }),
      10_000,
    );
    expect(line).toBe('[40/100] 2.0 units/s ETA 30s · errors 2 · parse failures 3 · cache 25% · $0.0123');
    expect(formatProgress(counts(10, { costUsd: null }), 1000)).toContain('$ unknown (unpriced model)');
    expect(formatDuration(3725)).toBe('1h02m');
    expect(formatDuration(252)).toBe('4m12s');
  });

  it("the ETA comes from the experiment phase's rate: neither setup time nor units recorded before a resume count", () => {
    const written: string[] = [];
    let clock = 0;
    const control = createRunControl({
      maxConsecutiveErrors: 5,
      maxErrorRate: 1,
      progress: { write: (text) => written.push(text), style: 'lines', now: () => clock },
    });
    // Five minutes of setup (inserts, probes) before the experiment phase starts; 50 of 100 units already recorded.
    clock += 300_000;
    control.begin(100, 50);
    for (let unit = 0; unit < 10; unit += 1) {
      clock += 1_000;
      control.unitFinished({ status: 'ok', replies: [], parseFailures: 0 });
    }
    // 10 units in the phase's 10 s: 1 unit/s, so the 40 left take 40 s.
    expect(written.at(-1)).toBe(
      '[60/100] 1.0 units/s ETA 40s · errors 0 · parse failures 0 · cache – · $ unknown (unpriced model)\n',
    );
  });

  it('plain lines: one per 10 % step or per interval, never one per unit', () => {
    const written: string[] = [];
    let clock = 0;
    const progress = createProgress({
      write: (text) => written.push(text),
      style: 'lines',
      intervalMs: 30_000,
      now: () => clock,
    });
    for (let done = 1; done <= 100; done += 1) {
      clock += 100;
      progress.update(counts(done));
    }
    progress.finish(counts(100));
    // The first unit (so a run shows it started), then one line per 10 % step.
    expect(written).toHaveLength(11);
    expect(written.every((text) => text.endsWith('\n'))).toBe(true);
    // A slow run still prints every 30 s between steps.
    const slow: string[] = [];
    clock = 0;
    const slowProgress = createProgress({
      write: (text) => slow.push(text),
      style: 'lines',
      intervalMs: 30_000,
      now: () => clock,
    });
    slowProgress.update(counts(1, { total: 1000 }));
    clock += 31_000;
    slowProgress.update(counts(2, { total: 1000 }));
    clock += 1_000;
    slowProgress.update(counts(3, { total: 1000 }));
    expect(slow).toHaveLength(2);
  });

  it('live: one line redrawn in place at most ten times a second, ended with a newline', () => {
    const written: string[] = [];
    let clock = 0;
    const progress = createProgress({ write: (text) => written.push(text), style: 'live', now: () => clock });
    for (let done = 1; done <= 50; done += 1) {
      clock += 10;
      progress.update(counts(done));
    }
    expect(written.length).toBeLessThanOrEqual(6);
    expect(written.every((text) => text.startsWith('\r\x1b[2K') && !text.endsWith('\n'))).toBe(true);
    progress.finish(counts(50));
    expect(written.at(-1)!.endsWith('\n')).toBe(true);
  });

  it('quiet prints nothing', () => {
    const written: string[] = [];
    const progress = createProgress({ write: (text) => written.push(text), style: 'quiet' });
    progress.update(counts(50));
    progress.finish(counts(100));
    expect(written).toEqual([]);
  });
});
