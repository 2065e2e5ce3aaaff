// Integrity targets for Python stores: seeding and reading through the store driver process, raw edits from TypeScript.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { missingPython, pythonPaths } from '../python/python-venv.js';
import { missingStoreEnv, storeEnvPaths } from '../python/store-envs.js';
import { startStoreProcess, StoreProcessError, type StoreProcess } from '../python/store-process.js';
import { HarnessFaultError } from './harness-fault.js';
import type {
  ContextName,
  IntegrityTarget,
  RawAccess,
  TargetDescription,
  TargetSession,
  Unavailable,
} from './integrity-target.js';

/** What the driver's `version` op returns for an adapter (backends/python/PROTOCOL.md). */
export interface DriverDescription {
  available: boolean;
  reason?: string;
  label: string;
  versions: Record<string, string>;
  store: string;
  config: Record<string, string>;
  detection: 'read' | 'audit';
  audit: boolean;
  revocation_fields: string[];
  /** Store files relative to the cell directory, the first being the SQLite file the raw edits open. */
  raw_files: string[];
  /** Owner string of each context as the store records it. */
  owners: Record<ContextName, string>;
}

/** Settings of one Python store target. */
export interface PythonStoreTargetSettings {
  /** Registry id, e.g. `inspeximus-receipts`. */
  id: string;
  /** Adapter module in backends/python/store_adapters/. */
  adapter: string;
  /** Passed to the adapter's describe and open. */
  config: Record<string, unknown>;
  /** Repository root (the venv and the driver live under it). */
  root: string;
  /**
   * The store environment (backends/python/store-envs.ts) whose venv runs this store; without it, the main venv of
   * `bash .ci/install`.
   */
  env?: string;
  /** The generic tooling the raw edits use, for describe(); default: SQL through better-sqlite3 on the first raw file. */
  tooling?: string;
  /** Raw access on the store's files (generic tooling in TypeScript, never the store's code). */
  raw(
    files: { sqlite: string; storeDir: string; owners: Record<ContextName, string> },
    log: (command: string) => void,
  ): RawAccess;
}

/** A driver error that is ours (bad request) is a harness fault; anything the store itself raised stays its own. */
function rethrow(error: unknown): never {
  if (error instanceof StoreProcessError && error.origin === 'driver')
    throw new HarnessFaultError(`store driver: ${error.message}`);
  throw error;
}

/**
 * Creates a target for a Python store. Each start is a new Python process (a real restart); its HOME and
 * XDG_CONFIG_HOME point at `<cell>/home`, outside the store directory, so whatever the library keeps in the user's
 * config home is off the store: the edits and T9's copy never touch it.
 *
 * @example createPythonStoreTarget({ id: 'inspeximus', adapter: 'inspeximus_store', config: { receipts: false }, root, raw: inspeximusRawAccess })
 */
export function createPythonStoreTarget(settings: PythonStoreTargetSettings): IntegrityTarget {
  const main = pythonPaths(settings.root);
  const paths = settings.env ? { ...main, python: storeEnvPaths(settings.root, settings.env).python } : main;
  const missing = () => (settings.env ? missingStoreEnv(settings.root, settings.env) : missingPython(settings.root));
  let described: Promise<DriverDescription> | undefined;
  const driverDescription = () =>
    (described ??= (async () => {
      const process = startStoreProcess({ python: paths.python, driver: paths.driver, timeoutMs: 60_000 });
      try {
        return await process.request<DriverDescription>('version', {
          adapter: settings.adapter,
          config: settings.config,
        });
      } finally {
        await process.close();
      }
    })());
  return {
    id: settings.id,
    async unavailable(): Promise<Unavailable | null> {
      const absent = missing();
      if (absent) return { reason: absent, missingPrerequisite: true };
      const description = await driverDescription();
      return description.available
        ? null
        : {
            reason: `the Python store could not be loaded from the venv (${description.reason ?? 'no reason'}); reinstall with ${settings.env ? `pnpm stores install ${settings.env}` : 'bash .ci/install'}`,
          };
    },
    async describe(): Promise<TargetDescription> {
      if (missing())
        return {
          label: settings.id,
          model: false,
          versions: {},
          store: 'not installed',
          config: {},
          detection: 'read',
          contexts: 2,
          tooling: 'none',
        };
      const found = await driverDescription();
      if (!found.available)
        return {
          label: settings.id,
          model: false,
          versions: {},
          store: 'not installed',
          config: {},
          detection: 'read',
          contexts: 2,
          tooling: 'none',
        };
      const hello = found.versions;
      return {
        label: found.label,
        model: false,
        versions: hello,
        store: found.store,
        config: found.config,
        detection: found.detection,
        contexts: 2,
        ...(found.revocation_fields.length ? { revocationFields: found.revocation_fields } : {}),
        tooling: `${settings.tooling ?? `SQL through better-sqlite3 on ${found.raw_files[0] ?? 'the store file'}; cp of store/ (T9)`}; driven through backends/python/stalebench_store_driver.py`,
      };
    },
    async createStore({ dir, log }) {
      const found = await driverDescription();
      const home = join(dir, 'home');
      mkdirSync(join(home, '.config'), { recursive: true });
      const raw = settings.raw(
        {
          sqlite: join(dir, found.raw_files[0] ?? 'store/store.db'),
          storeDir: join(dir, 'store'),
          owners: found.owners,
        },
        log,
      );
      const live = new Set<StoreProcess>();
      return {
        raw,
        async start(): Promise<TargetSession> {
          const process = startStoreProcess({
            python: paths.python,
            driver: paths.driver,
            env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
          });
          live.add(process);
          try {
            await process.request('open', { adapter: settings.adapter, dir, config: settings.config });
          } catch (error) {
            await process.close();
            live.delete(process);
            rethrow(error);
          }
          const call = <T>(op: string, parameters: Record<string, unknown>) =>
            process.request<T>(op, parameters).catch(rethrow);
          return {
            seed: async (context, records) => void (await call('seed', { context, records })),
            read: (context) => call('read', { context }),
            ...(found.audit ? { audit: (context: ContextName) => call('audit', { context }) } : {}),
            async stop() {
              await process.close();
              live.delete(process);
            },
          };
        },
        async dispose() {
          await Promise.all([...live].map((process) => process.close()));
        },
      };
    },
  };
}
