// A memory system in a Python library behind the store driver: one process per backend; a namespace written by a
// process that died is refused until it is reset, so a lost write is an error for its unit and never an empty answer.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EvalError, MissingPrerequisiteError } from '#core/errors.js';
import type { RecordedWarning } from '../memory-backend.js';
import { missingPython, pythonPaths, VENV_DIR } from './python-venv.js';
import { missingStoreEnv, storeEnvPaths } from './store-envs.js';
import { startStoreProcess, StoreProcessError, type StoreProcess } from './store-process.js';

/** The Python package a memory adapter measures, pinned exactly (backends/python/requirements.txt). */
export interface PythonPackagePin {
  /** The distribution name, e.g. `inspeximus`. */
  name: string;
  /** The exact version the run records and the venv must hold. */
  version: string;
}

/** Settings of `createPythonMemoryProcess`. */
export interface PythonMemoryProcessSettings {
  /** The system id, for messages. */
  system: string;
  /** The adapter module in backends/python/store_adapters/. */
  adapter: string;
  /** The package the adapter drives; a different installed version is refused. */
  pin: PythonPackagePin;
  /** Repository root: the venv and the driver live under it. */
  root: string;
  /** Stores live under `<workDir>/stores`; the library's HOME is `<workDir>/home` (its user config stays empty). */
  workDir: string;
  /** Per-request timeout; default 120 s. */
  timeoutMs?: number;
  /** The store environment (store-envs.ts) whose venv runs the adapter; without it, the main venv. */
  env?: string;
  /** The adapter's `open` configuration (`open_store(dir, config)`, e.g. the run embedder's dimensions); absent sends none. */
  config?: Record<string, unknown>;
  /** Extra environment of the process (a server's credentials): never sent in a request, never logged. */
  environment?: Readonly<Record<string, string>>;
}

/** The process as a memory backend uses it. */
export interface PythonMemoryProcess {
  /** Starts the driver, checks the installed package against the pin and opens the adapter. Idempotent. */
  open(): Promise<void>;
  /** `insert`, `search` or `list` on one namespace; refused when a process that wrote the namespace has died. */
  request<T>(op: 'insert' | 'search' | 'list', namespace: string, parameters?: Record<string, unknown>): Promise<T>;
  /** Removes a namespace's store, first starting a new process when the last one died. */
  reset(namespace: string): Promise<void>;
  /** Notes since the last call (a restart, environment variables removed), to report as warnings. */
  takeNotes(): RecordedWarning[];
  /** The live process id, or undefined (tests kill it). */
  pid(): number | undefined;
  /** Resolves once the live process has ended and this client knows it (at once when none runs); tests wait on it. */
  exited(): Promise<void>;
  /** Closes the process. */
  close(): Promise<void>;
}

interface VersionAnswer {
  available: boolean;
  reason?: string;
  versions?: Record<string, string>;
}

type VenvChoice = Pick<PythonMemoryProcessSettings, 'root' | 'env'>;

/** The prerequisite as errors name it. */
const pinned = (pin: PythonPackagePin, { env }: VenvChoice) =>
  env
    ? `the Python package ${pin.name}==${pin.version} (backends/python/envs/${env}.txt, in .cache/python-stores/${env}/venv)`
    : `the Python package ${pin.name}==${pin.version} (backends/python/requirements.txt, in ${VENV_DIR})`;
const installCommand = ({ env }: VenvChoice) => (env ? `pnpm stores install ${env}` : 'bash .ci/install');

/** The venv's python and the driver: the store environment's when `env` is set, else the main venv's. */
function venvPaths({ root, env }: VenvChoice): { python: string; driver: string } {
  const main = pythonPaths(root);
  return env ? { ...main, python: storeEnvPaths(root, env).python } : main;
}

/**
 * `pythonPackageProblem` for one system, asked once per process for the checkout's own root (a run checks its systems
 * often); another root (a test's) is asked each time.
 *
 * @example export const mem0PyProblem = packageProblemOnce({ system: 'mem0-py', adapter, pin, env: 'mem0-py' }, ROOT);
 */
export function packageProblemOnce(
  settings: Pick<PythonMemoryProcessSettings, 'system' | 'adapter' | 'pin' | 'env'>,
  projectRoot: string,
): (root?: string) => Promise<MissingPrerequisiteError | null> {
  let checked: Promise<MissingPrerequisiteError | null> | undefined;
  return (root = projectRoot) => {
    if (root !== projectRoot) return pythonPackageProblem({ ...settings, root });
    checked ??= pythonPackageProblem({ ...settings, root });
    return checked;
  };
}

/**
 * Whether the venv can run the adapter with the pinned package: null, or a `MissingPrerequisiteError` naming the
 * package, what is wrong and the install command. Asks the driver's `version` op (which opens no store).
 */
export async function pythonPackageProblem(
  settings: Pick<PythonMemoryProcessSettings, 'system' | 'adapter' | 'pin' | 'root' | 'env'>,
  running?: StoreProcess,
): Promise<MissingPrerequisiteError | null> {
  const missing = settings.env ? missingStoreEnv(settings.root, settings.env) : missingPython(settings.root);
  if (missing) return new MissingPrerequisiteError(settings.system, pinned(settings.pin, settings), missing);
  const paths = venvPaths(settings);
  const driver = running ?? startStoreProcess({ python: paths.python, driver: paths.driver, timeoutMs: 60_000 });
  try {
    const answer = await driver
      .request<VersionAnswer>('version', { adapter: settings.adapter })
      .catch((error: unknown): VersionAnswer => {
        if (error instanceof StoreProcessError && error.origin === 'process')
          return { available: false, reason: `the venv's Python did not answer (${error.message})` };
        throw error;
      });
    if (!answer.available)
      return new MissingPrerequisiteError(
        settings.system,
        pinned(settings.pin, settings),
        `${answer.reason ?? 'it cannot be imported'}; run ${installCommand(settings)}`,
      );
    const installed = answer.versions?.[settings.pin.name];
    if (installed !== settings.pin.version)
      return new MissingPrerequisiteError(
        settings.system,
        pinned(settings.pin, settings),
        `${settings.env ? `.cache/python-stores/${settings.env}/venv` : VENV_DIR} holds ${settings.pin.name} ${installed ?? 'of no version'}; run ${installCommand(settings)}`,
      );
    return null;
  } finally {
    if (!running) await driver.close();
  }
}

/**
 * Creates the process client (nothing starts until `open`).
 *
 * @example
 * const python = createPythonMemoryProcess({ system: 'inspeximus', adapter: 'inspeximus_memory', pin, root, workDir });
 * await python.open();
 * await python.request('insert', 'ns', { steps });
 */
export function createPythonMemoryProcess(settings: PythonMemoryProcessSettings): PythonMemoryProcess {
  const paths = venvPaths(settings);
  const home = join(settings.workDir, 'home');
  let live: StoreProcess | undefined;
  let generation = 0;
  let starting: Promise<void> | undefined;
  // Namespace → the process generation that wrote into it since its last reset.
  const written = new Map<string, number>();
  let notes: RecordedWarning[] = [];

  const start = async (afterDeath: boolean): Promise<void> => {
    mkdirSync(join(home, '.config'), { recursive: true });
    const driver = startStoreProcess({
      python: paths.python,
      driver: paths.driver,
      env: { ...settings.environment, HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
      ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
    });
    try {
      const problem = await pythonPackageProblem(settings, driver);
      if (problem) throw problem;
      const opened = await driver.request<{ environment_removed?: string[] }>('open', {
        adapter: settings.adapter,
        dir: join(settings.workDir, 'stores'),
        ...(settings.config ? { config: settings.config } : {}),
      });
      const removed = opened.environment_removed ?? [];
      if (removed.length > 0)
        notes.push({
          type: 'compatibility',
          feature: 'environment',
          message: `removed ${removed.join(', ')} from the Python process so ${settings.pin.name}'s defaults apply`,
        });
    } catch (error) {
      await driver.close();
      throw error;
    }
    if (afterDeath)
      notes.push({
        type: 'other',
        feature: 'python process',
        message: `a new ${settings.pin.name} process was started after the previous one died; namespaces it had written were refused until reset`,
      });
    generation += 1;
    live = driver;
  };
  const running = async (): Promise<StoreProcess> => {
    if (live && live.exitStatus() === null) return live;
    starting ??= start(live !== undefined).finally(() => {
      starting = undefined;
    });
    await starting;
    if (!live) throw new EvalError('python-process', `${settings.system}: the Python process did not start`);
    return live;
  };
  const refuseLost = (namespace: string): void => {
    const writer = written.get(namespace);
    const exit = live?.exitStatus() ?? null;
    if (writer === undefined || (live !== undefined && exit === null && writer === generation)) return;
    const how = writer === generation && exit ? ` (code ${exit.code}, signal ${exit.signal})` : '';
    throw new EvalError(
      'python-process-died',
      `${settings.system}: the ${settings.pin.name} process that held namespace "${namespace}" died${how}; what it wrote may be lost, so the namespace is refused until it is reset and seeded again`,
    );
  };

  /** One request; a process that died under it is named with the system, the op and the namespace. */
  const send = <T>(
    driver: StoreProcess,
    op: string,
    namespace: string,
    parameters: Record<string, unknown>,
  ): Promise<T> =>
    driver.request<T>(op, { namespace, ...parameters }).catch((error: unknown) => {
      if (!(error instanceof StoreProcessError) || error.origin !== 'process') throw error;
      throw new EvalError(
        'python-process-died',
        `${settings.system}: ${op} on namespace "${namespace}" failed: ${error.message}`,
        { cause: error },
      );
    });

  return {
    async open() {
      await running();
    },
    async request<T>(op: 'insert' | 'search' | 'list', namespace: string, parameters: Record<string, unknown> = {}) {
      refuseLost(namespace);
      const driver = await running();
      if (op === 'insert') written.set(namespace, generation);
      return send<T>(driver, op, namespace, parameters);
    },
    async reset(namespace) {
      await send(await running(), 'reset', namespace, {});
      written.delete(namespace);
    },
    takeNotes() {
      const taken = notes;
      notes = [];
      return taken;
    },
    pid: () => (live && live.exitStatus() === null ? live.pid : undefined),
    exited: () => live?.exited ?? Promise.resolve(),
    async close() {
      await starting?.catch(() => undefined);
      const closing = live;
      live = undefined;
      if (!closing) return;
      const died = closing.exitStatus() !== null;
      await closing.close();
      // A clean close flushed every store: what was written is on disk for the next process. After a death it is not.
      if (!died) written.clear();
    },
  };
}
