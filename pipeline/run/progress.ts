// Progress of a run: one live line on a TTY; a plain line every 10 % or 30 s elsewhere (CI, pipes); nothing with --quiet.

/** Counters the phases report after each unit. */
export interface ProgressCounts {
  /** Units finished, including those skipped as already done on resume. */
  done: number;
  total: number;
  /** Units finished by this invocation's experiment phase (the rate is computed from these only, from its start). */
  ran: number;
  errors: number;
  parseFailures: number;
  cacheHits: number;
  /** Decision calls answered (cache hits included), for the hit rate. */
  calls: number;
  /** Spend so far in US dollars; null when a model has no known price. */
  costUsd: number | null;
}

/** How progress is shown. */
export interface ProgressSettings {
  /** Where lines go (stderr by default in the CLI). */
  write: (text: string) => void;
  /** `live`: one line rewritten in place (TTY); `lines`: plain lines; `quiet`: nothing. */
  style: 'live' | 'lines' | 'quiet';
  /** Plain-line cadence: at most every `intervalMs`, and at every 10 % step (default 30 s). */
  intervalMs?: number;
  /** Clock (tests). */
  now?: () => number;
}

/** The style for a stream: `quiet` when asked, `lines` when not a TTY or when `CI` is set, else `live`. */
export function progressStyle(options: {
  quiet: boolean;
  isTTY: boolean | undefined;
  env: NodeJS.ProcessEnv;
}): ProgressSettings['style'] {
  if (options.quiet) return 'quiet';
  return options.isTTY && !options.env.CI ? 'live' : 'lines';
}

/** `1h02m`, `4m12s`, `9s`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/** One progress line: done/total, units/s, ETA, errors, parse failures, cache hit %, $ so far. */
export function formatProgress(counts: ProgressCounts, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? counts.ran / (elapsedMs / 1000) : 0;
  const remaining = counts.total - counts.done;
  const eta = remaining === 0 ? 'done' : rate > 0 ? `ETA ${formatDuration(remaining / rate)}` : 'ETA ?';
  const hit = counts.calls === 0 ? '–' : `${Math.round((100 * counts.cacheHits) / counts.calls)}%`;
  const cost = counts.costUsd === null ? '$ unknown (unpriced model)' : `$${counts.costUsd.toFixed(4)}`;
  return `[${counts.done}/${counts.total}] ${rate.toFixed(1)} units/s ${eta} · errors ${counts.errors} · parse failures ${counts.parseFailures} · cache ${hit} · ${cost}`;
}

/**
 * Creates a progress reporter. `update` is cheap to call after every unit: the live style redraws at most ten
 * times a second; the plain style prints at each 10 % step or after `intervalMs`, whichever comes first.
 *
 * @example
 * const progress = createProgress({ write: (t) => process.stderr.write(t), style: progressStyle({ quiet: false, isTTY: process.stderr.isTTY, env: process.env }) });
 * progress.update(counts); progress.finish(counts);
 */
export function createProgress(settings: ProgressSettings) {
  const now = settings.now ?? Date.now;
  const intervalMs = settings.intervalMs ?? 30_000;
  let started = now();
  let lastDraw = -Infinity;
  let lastStep = -1;
  let drawn = false;
  const line = (counts: ProgressCounts) => formatProgress(counts, now() - started);
  return {
    /** The experiment phase starts: the rate (and so the ETA) counts from here, not from the run's setup. */
    begin(): void {
      started = now();
    },
    update(counts: ProgressCounts): void {
      if (settings.style === 'quiet') return;
      const at = now();
      if (settings.style === 'live') {
        if (at - lastDraw < 100 && counts.done < counts.total) return;
        settings.write(`\r\x1b[2K${line(counts)}`);
        drawn = true;
        lastDraw = at;
        return;
      }
      const step = counts.total === 0 ? 10 : Math.floor((10 * counts.done) / counts.total);
      if (step > lastStep || at - lastDraw >= intervalMs) {
        settings.write(`${line(counts)}\n`);
        lastStep = step;
        lastDraw = at;
      }
    },
    /** Ends the live line (so later output starts on a fresh line) or prints the last plain line. */
    finish(counts: ProgressCounts): void {
      if (settings.style === 'quiet') return;
      if (settings.style === 'live') {
        settings.write(`\r\x1b[2K${line(counts)}\n`);
        drawn = false;
        return;
      }
      if (lastStep < 10) settings.write(`${line(counts)}\n`);
    },
    /** True while a live line is on screen (other output should start with a newline). */
    get live(): boolean {
      return drawn;
    },
  };
}
