// The viewer's run list: per run directory its manifest's facts and its verify-run state, or why it cannot be read.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { runKindIdOf } from '../run-kinds/index.js';
import { simBannerText, simulatedParts, type ManifestLike } from '../sim-parts.js';
import { checkRunLog, problemText, type RunLogCheck } from '../../pipeline/index.js';

/** What the run list shows of one run directory. */
export interface RunEntry {
  /** The URL segment of the run: its position in the list and its directory name. */
  slug: string;
  dir: string;
  /** Why the directory cannot be read (no manifest, unreadable, not JSON); the other fields are then empty. */
  readError: string | null;
  /** `grid`, `writeback`, ..., or a suite id (`integrity`). */
  experiment: string;
  status: string;
  models: string[];
  simulated: boolean;
  /** The banner naming what was simulated (decisions, extraction or both; analysis/sim-parts.ts), or null. */
  simBanner: string | null;
  /** The spec in one line (systems, modes, arms, axes, trials, scenarios). */
  spec: string;
  done: number | null;
  planned: number | null;
  errors: number | null;
  /** verify-run's state: intact, unfinished, broken, unverifiable (pnpm verify-run). */
  verify: RunLogCheck['state'] | 'unreadable';
  /** The first bad line (`records.jsonl:5: edited: ...`) when the run does not verify. */
  firstProblem: string | null;
  /** `signature.json` is present (its key fingerprint; checked by `pnpm verify-run --pubkey`). */
  signedBy: string | null;
}

const list = (values: unknown): string =>
  Array.isArray(values) ? values.map(String).join(',') : values === undefined ? '' : String(values);

/** The one-line spec of a manifest (a grid spec, or a suite's arguments). */
function specLine(manifest: Record<string, unknown>): string {
  const spec = (manifest.spec ?? {}) as Record<string, unknown>;
  if (typeof manifest.suite === 'string') return `suite ${manifest.suite} ${JSON.stringify(spec.args ?? {})}`;
  const parts = [
    `systems ${list(spec.systems)}`,
    `modes ${list(spec.modes)}`,
    `arms ${list(spec.arms)}`,
    `guard ${list(spec.guard)}`,
    `poem ${list(spec.poem)}`,
    `trials ${list(spec.trials)}`,
    `scenarios ${Array.isArray(spec.scenarios) ? spec.scenarios.length : '?'}`,
  ];
  return parts.join(' · ');
}

/** Reads one run directory into its list entry; never throws (an unreadable directory is listed with its error). */
export function readRunEntry(dir: string, position: number): RunEntry {
  const runDir = resolve(dir);
  const slug = `${position}-${basename(runDir).replace(/[^A-Za-z0-9._-]/g, '_')}`;
  const empty: RunEntry = {
    slug,
    dir: runDir,
    readError: null,
    experiment: '',
    status: '',
    models: [],
    simulated: false,
    simBanner: null,
    spec: '',
    done: null,
    planned: null,
    errors: null,
    verify: 'unreadable',
    firstProblem: null,
    signedBy: null,
  };
  try {
    if (!statSync(runDir).isDirectory()) return { ...empty, readError: `${runDir}: not a directory` };
    readdirSync(runDir);
    const manifestPath = join(runDir, 'manifest.json');
    if (!existsSync(manifestPath)) return { ...empty, readError: `${manifestPath}: no manifest; not a run directory` };
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
    const check = checkRunLog(runDir);
    const first = check.problems[0];
    const counts = manifest.counts as { units?: number; done?: number; errors?: number } | undefined;
    const signaturePath = join(runDir, 'signature.json');
    const signature = existsSync(signaturePath)
      ? (JSON.parse(readFileSync(signaturePath, 'utf8')) as { keyFingerprint?: string })
      : null;
    return {
      ...empty,
      experiment: runKindIdOf(manifest as { suite?: unknown; spec?: { experiment?: unknown } }),
      status: String(manifest.status ?? ''),
      models: ((manifest.models ?? []) as { label?: string; id?: string }[]).map((m) => m.label ?? m.id ?? '?'),
      simulated: manifest.simulated === true,
      simBanner: simBannerText(simulatedParts([manifest as ManifestLike])),
      spec: specLine(manifest),
      done: counts?.done ?? null,
      planned: counts?.units ?? null,
      errors: counts?.errors ?? null,
      verify: check.state,
      firstProblem:
        check.state === 'broken' || check.state === 'unverifiable' ? (first ? problemText(first) : null) : null,
      signedBy: signature ? String(signature.keyFingerprint ?? 'unknown key') : null,
    };
  } catch (error) {
    return { ...empty, readError: `${runDir}: ${error instanceof Error ? error.message : String(error)}` };
  }
}
