// Who owns an engine namespace: the run directory whose manifest or lock names its nonce, and whether that process runs.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EngineNamespace } from '../../backends/engine-namespaces.js';
import { readJsonIfExists } from '../run-log/json-files.js';
import { describeHolder, holderState, readRunLock, type LockHolder } from '../run/run-lock.js';
import type { RunManifest } from '../run-log/run-log.js';

/** The run directory a nonce belongs to, and whether the process with that nonce still holds the run's lock. */
export interface NonceOwner {
  runDir: string;
  /** `running`: the run's lock is held by this nonce's process (alive, or on a host that cannot be checked). */
  state: 'running' | 'gone';
  /** One line for the user, e.g. `run runs/x, pid 12 on host h (started …), no longer running`. */
  description: string;
}

/** What `--orphans` does with each nonce found on an engine. */
export interface OrphanPlan {
  /** Nonces whose process is gone: their namespaces are removed. */
  remove: { nonce: string; namespaces: EngineNamespace[]; reason: string }[];
  /** Nonces whose process still runs: kept. */
  running: { nonce: string; namespaces: EngineNamespace[]; reason: string }[];
  /** Nonces no run directory under the searched roots names: kept unless `includeUnknown`. */
  unknown: { nonce: string; namespaces: EngineNamespace[] }[];
}

/** The run directories directly under each root (directories holding a manifest or a lock). */
export function runDirectoriesUnder(roots: readonly string[]): string[] {
  return roots.flatMap((root) => {
    const absolute = resolve(root);
    if (!existsSync(absolute)) return [];
    return readdirSync(absolute, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(absolute, entry.name))
      .filter((dir) => existsSync(join(dir, 'manifest.json')) || existsSync(join(dir, 'eval.lock')));
  });
}

/**
 * Every nonce the run directories record (manifest invocations, and the nonce of the current lock), with its
 * owner's state. A nonce whose run's lock is held by that same nonce is `running`; any other is `gone`: the lock is
 * taken before a process creates its first namespace and released only after its last.
 */
export function nonceOwners(runDirs: readonly string[]): Map<string, NonceOwner> {
  const owners = new Map<string, NonceOwner>();
  for (const runDir of runDirs) {
    const lock = readRunLock(runDir);
    const holder: LockHolder | null = lock === null || lock === 'unreadable' ? null : lock;
    const holderRuns = holder !== null && holderState(holder) !== 'dead';
    const manifest = readJsonIfExists<RunManifest>(join(runDir, 'manifest.json'));
    const recorded = (manifest?.invocations ?? []).map((entry) => ({
      nonce: entry.nonce,
      who: `pid ${entry.pid} on host ${entry.host} (started ${entry.startedAt})`,
      ended: entry.ended?.status,
    }));
    if (holder && !recorded.some((entry) => entry.nonce === holder.nonce))
      recorded.push({ nonce: holder.nonce, who: describeHolder(holder), ended: undefined });
    for (const { nonce, who, ended } of recorded) {
      const running = holderRuns && holder?.nonce === nonce;
      const status = running ? 'still running' : ended ? `ended (${ended})` : 'killed (it never recorded an end)';
      owners.set(nonce, {
        runDir,
        state: running ? 'running' : 'gone',
        description: `run ${runDir}, ${who}, ${status}`,
      });
    }
  }
  return owners;
}

/**
 * Splits the namespaces found on the engines by their owners' state.
 *
 * @example
 * const plan = planOrphans(await listEngineNamespaces(engine), nonceOwners(runDirectoriesUnder(['runs'])));
 */
export function planOrphans(
  namespaces: readonly EngineNamespace[],
  owners: ReadonlyMap<string, NonceOwner>,
): OrphanPlan {
  const byNonce = new Map<string, EngineNamespace[]>();
  for (const namespace of namespaces)
    byNonce.set(namespace.nonce, [...(byNonce.get(namespace.nonce) ?? []), namespace]);
  const plan: OrphanPlan = { remove: [], running: [], unknown: [] };
  for (const [nonce, list] of [...byNonce].sort(([a], [b]) => a.localeCompare(b))) {
    const owner = owners.get(nonce);
    if (!owner) plan.unknown.push({ nonce, namespaces: list });
    else
      plan[owner.state === 'running' ? 'running' : 'remove'].push({
        nonce,
        namespaces: list,
        reason: owner.description,
      });
  }
  return plan;
}
