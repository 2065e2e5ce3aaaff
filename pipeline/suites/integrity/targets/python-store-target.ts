// Integrity targets for Python stores: seeding and reading through the store driver process, raw edits from TypeScript.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { missingPython, pythonPaths } from '../../../../backends/python/python-venv.js';
import { missingStoreEnv, storeEnvPaths } from '../../../../backends/python/store-envs.js';
import { startStoreProcess, StoreProcessError, type StoreProcess } from '../../../../backends/python/store-process.js';
import { HarnessFaultError } from './harness-fault.js';
import type {
  ContextName,
  IntegrityTarget,
  RawAccess,
  StoreSettings,
  TargetDescription,
  TargetPosition,
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

/** Where one cell's store lives, handed to the target's raw access. */
export interface PythonStoreFiles {
  /** The SQLite file the raw edits open (`<cell>/<raw_files[0]>`). */
  sqlite: string;
  /** The store directory (`<cell>/store`), which T9's copy takes whole. */
  storeDir: string;
  /** The process's HOME (`<cell>/home`, outside the store; XDG_CONFIG_HOME is its `.config`). */
  home: string;
  /** Owner string of each context as the store records it. */
  owners: Record<ContextName, string>;
}

/**
 * A Python store on a server the target runs (Redis): what the driver's `version` and each cell's `open` add to the
 * adapter's config, and how a cell's data leaves the server.
 */
export interface PythonStoreServer {
  /** Added to the config of `version` (the server's URL, so the adapter can name the server's version). */
  versionConfig(): Promise<Record<string, unknown>>;
  /** Added to the config of `open` for one cell (the server's URL and the cell's own key prefix). */
  cellConfig(cellId: string): Promise<Record<string, unknown>>;
  /** Removes one cell's data from the server when the cell's store is disposed. */
  disposeCell(cell: Record<string, unknown>): Promise<void>;
  /** The generic tooling the raw edits use, for the description. */
  tooling: string;
}

/** Settings of one Python store target. */
export interface PythonStoreTargetSettings {
  /** Registry id, e.g. `inspeximus-receipts-keyed`. */
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
  /**
   * The generic tooling the raw edits use, as the description states it, T9's copy included; default: SQL through
   * better-sqlite3 on the first raw file and `cp` of `store/` (T9).
   */
  tooling?: string;
  /** The process position during each edit (`TargetDescription.position`); absent = the method's `restarted`. */
  position?: TargetPosition;
  /**
   * Extra environment variables of the store process only (a key the library reads from its environment). They
   * never reach the store's files, so the raw edits run without them, as the threat model's attacker does.
   */
  processEnv?: Readonly<Record<string, string>>;
  /** Set for a store on a server the target runs (Redis: a key prefix per cell on one server). */
  server?: PythonStoreServer;
  /**
   * A per-cell resource outside the cell directory (a database on a shared server), created before the store and
   * removed at dispose; its `config` is added to the config `open` receives.
   */
  cell?(settings: StoreSettings): Promise<CellResource>;
  /**
   * Raw access on the store's files, or on its server with `cell`, the config the cell's store is opened with
   * (generic tooling in TypeScript, never the store's code).
   */
  raw(files: PythonStoreFiles, log: (command: string) => void, cell: Record<string, unknown>): RawAccess;
}

/** What {@link PythonStoreTargetSettings.cell} made for one cell. */
export interface CellResource {
  /** Added to the adapter's open config (e.g. `{uri}` of the cell's database). */
  config: Record<string, unknown>;
  /** Removes the resource. */
  dispose(): Promise<void>;
}

const DRIVEN = 'driven through backends/python/stalebench_store_driver.py';

/** What the raw edits of a SQLite store use, as descriptions state it. */
const defaultTooling = (rawFiles: readonly string[]): string =>
  `SQL through better-sqlite3 on ${rawFiles[0] ?? 'the store file'}`;

/** A driver error that is ours (bad request) is a harness fault; anything the store itself raised stays its own. */
function rethrow(error: unknown): never {
  if (error instanceof StoreProcessError && error.origin === 'driver')
    throw new HarnessFaultError(`store driver: ${error.message}`);
  throw error;
}

/**
 * Creates a target for a Python store. Each start is a new Python process (a real restart); its HOME and
 * XDG_CONFIG_HOME point at `<cell>/home`, outside the store directory, so whatever the library keeps in the user's
 * config home is off the store: the edits and T9's copy leave it alone unless the target's raw access models an
 * attacker who holds it too (`inspeximus-receipts-keyed-confighome`).
 *
 * @example createPythonStoreTarget({ id: 'inspeximus', adapter: 'inspeximus_store', config: { receipts: false }, root, raw: inspeximusRawAccess })
 */
export function createPythonStoreTarget(settings: PythonStoreTargetSettings): IntegrityTarget {
  const main = pythonPaths(settings.root);
  const paths = settings.env ? { ...main, python: storeEnvPaths(settings.root, settings.env).python } : main;
  const missing = () => (settings.env ? missingStoreEnv(settings.root, settings.env) : missingPython(settings.root));
  const position = settings.position ? { position: settings.position } : {};
  let described: Promise<DriverDescription> | undefined;
  const driverDescription = () =>
    (described ??= (async () => {
      const process = startStoreProcess({ python: paths.python, driver: paths.driver, timeoutMs: 60_000 });
      try {
        return await process.request<DriverDescription>('version', {
          adapter: settings.adapter,
          config: { ...settings.config, ...(await settings.server?.versionConfig()) },
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
      if (description.available) return null;
      // The adapter's PackageCannotRun: the pinned package is there and cannot run this store; a reinstall changes nothing.
      const cannotRun = description.reason?.match(/^PackageCannotRun: (.*)$/s);
      if (cannotRun) return { reason: cannotRun[1]! };
      // A package that fails to import is a prerequisite the user can fix: the command exits 1 naming it (issue #28).
      return {
        reason: `the Python store could not be loaded from the venv (${description.reason ?? 'no reason'}); reinstall with ${settings.env ? `pnpm stores install ${settings.env}` : 'bash .ci/install'}`,
        missingPrerequisite: true,
      };
    },
    async describe(): Promise<TargetDescription> {
      const notInstalled: TargetDescription = {
        label: settings.id,
        model: false,
        versions: {},
        store: 'not installed',
        config: {},
        detection: 'read',
        contexts: 2,
        tooling: 'none',
        ...position,
      };
      if (missing()) return notInstalled;
      const found = await driverDescription();
      if (!found.available) return notInstalled;
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
        tooling: `${settings.server?.tooling ?? settings.tooling ?? `${defaultTooling(found.raw_files)}; cp of store/ (T9)`}; ${DRIVEN}`,
        ...position,
      };
    },
    async createStore(cellSettings) {
      const { dir, cellId, log } = cellSettings;
      const found = await driverDescription();
      const resource = settings.cell ? await settings.cell(cellSettings) : null;
      const cell = { ...settings.config, ...(await settings.server?.cellConfig(cellId)), ...resource?.config };
      const home = join(dir, 'home');
      mkdirSync(join(home, '.config'), { recursive: true });
      const raw = settings.raw(
        {
          sqlite: join(dir, found.raw_files[0] ?? 'store/store.db'),
          storeDir: join(dir, 'store'),
          home,
          owners: found.owners,
        },
        log,
        cell,
      );
      const live = new Set<StoreProcess>();
      return {
        raw,
        async start(): Promise<TargetSession> {
          const process = startStoreProcess({
            python: paths.python,
            driver: paths.driver,
            env: { ...settings.processEnv, HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
          });
          live.add(process);
          try {
            await process.request('open', { adapter: settings.adapter, dir, config: cell });
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
          await settings.server?.disposeCell(cell);
          await resource?.dispose();
        },
      };
    },
  };
}
