// Resume only what is the same experiment: compare scenarios, prompts, revision and packages with the manifest.
import { EvalError } from '#core/errors.js';
import type { RunManifest } from '../run-log/run-log.js';

/** What a resume must match: the fields the run's first invocation wrote into the manifest. */
export type RunFingerprint = Pick<RunManifest, 'scenarios' | 'revision' | 'packages'> & {
  prompts: Record<string, string>;
};

/** A resume refused because the experiment differs; the message lists every difference, one per line. */
export class ResumeRefusedError extends EvalError {
  readonly changes: readonly string[];
  constructor(runDir: string, changes: readonly string[]) {
    super(
      'resume-refused',
      `${runDir} was started by a different experiment; not resuming (pass --resume-anyway to continue, recorded in the manifest's resumes):\n${changes.map((change) => `  - ${change}`).join('\n')}`,
    );
    this.changes = changes;
  }
}

const short = (hash: string | null | undefined) => (hash ? hash.slice(0, 12) : 'none');

function keyedChanges(
  kind: string,
  label: string,
  recorded: Readonly<Record<string, string>>,
  current: Readonly<Record<string, string>>,
  show: (value: string) => string,
): string[] {
  const names = [...new Set([...Object.keys(recorded), ...Object.keys(current)])].sort();
  return names.flatMap((name) => {
    const before = recorded[name];
    const now = current[name];
    if (before === now) return [];
    if (before === undefined) return [`${kind} ${name}: not in the run as first written (now ${label}${show(now!)})`];
    if (now === undefined) return [`${kind} ${name}: no longer present (was ${label}${show(before)})`];
    return [`${kind} ${name}: ${label}${show(before)} → ${show(now)}`];
  });
}

/**
 * Every difference between the manifest as first written and this invocation, one line each; empty when the
 * resume continues the same experiment. A field the first invocation did not record counts as a difference.
 *
 * @example
 * resumeChanges(previous, current); // ['scenario mfa_waiver_access: content sha256 1a2b3c4d5e6f → 9f8e7d6c5b4a']
 */
export function resumeChanges(recorded: RunManifest, current: RunFingerprint): string[] {
  const hashes = (list: RunFingerprint['scenarios']) => Object.fromEntries(list.map((s) => [s.id, s.sha256]));
  const changes = keyedChanges(
    'scenario',
    'content sha256 ',
    hashes(recorded.scenarios),
    hashes(current.scenarios),
    short,
  );
  if (recorded.prompts === undefined)
    changes.push('prompts: not recorded when the run began (its manifest predates prompt hashes)');
  else changes.push(...keyedChanges('prompt', 'sha256 ', recorded.prompts, current.prompts, short));
  const before = recorded.revision;
  const now = current.revision;
  if (before.commit !== now.commit) changes.push(`revision: commit ${short(before.commit)} → ${short(now.commit)}`);
  if (before.dirty !== now.dirty)
    changes.push(`revision: uncommitted changes ${String(before.dirty)} → ${String(now.dirty)}`);
  else if (now.dirty && (before.diffSha256 ?? null) !== (now.diffSha256 ?? null)) {
    changes.push(
      `revision: different uncommitted changes (git diff sha256 ${short(before.diffSha256)} → ${short(now.diffSha256)})`,
    );
  }
  changes.push(...keyedChanges('package', '', recorded.packages, current.packages, (version) => version));
  return changes;
}
