// The suite registry (issue #27 item 1): one line per suite. `pnpm merge` finds a suite run's plan and summary here.
import { INTEGRITY_TARGET_IDS, loadIntegrityTarget } from './integrity/targets/registry.js';
import { UnknownComponentError } from '#core/errors.js';
import { createFrontdoorSuite } from './frontdoor/suite.js';
import { createIntegritySuite } from './integrity/suite.js';
import type { SuiteCiV1, SuiteReportV1 } from '../run/suite.js';
import type { AnySuite } from './run-suite.js';

/** What a suite may read from where its command runs. */
export interface SuiteEnvironment {
  /** Environment variables (Neo4j settings, ...). */
  env: Readonly<Record<string, string | undefined>>;
  /** Repository root (the Python venv lives in `<root>/.cache/python/venv`). */
  root: string;
}

const SUITES: Record<string, (environment: SuiteEnvironment) => AnySuite> = {
  integrity: (environment) =>
    createIntegritySuite({
      loadTarget: (id) => loadIntegrityTarget(id, environment),
      targetIds: INTEGRITY_TARGET_IDS,
    }),
  frontdoor: (environment) => createFrontdoorSuite({ env: environment.env }),
};

/**
 * The suite registered as `id`, built for `environment`; `UnknownComponentError` naming the registered ones.
 *
 * @example const suite = suiteOf('integrity', { env: process.env, root: process.cwd() });
 */
export function suiteOf(id: string, environment: SuiteEnvironment): AnySuite {
  const create = SUITES[id];
  if (!create) throw new UnknownComponentError('suite', id, Object.keys(SUITES));
  return create(environment);
}

/** The registered suite ids, in registry order. */
export const suiteIds = (): string[] => Object.keys(SUITES);

/**
 * The renderer `pnpm report` uses for a run of suite `id` (its `report` member), or undefined for an unknown suite.
 * Built with an empty environment: a suite reads its targets' settings only when it runs.
 */
export function suiteReportOf(id: string): SuiteReportV1<unknown> | undefined {
  return SUITES[id]?.({ env: {}, root: process.cwd() }).report;
}

/**
 * The registered suites CI is offered (those with a `ci` member: the stalebench action, pipeline/ci/), each with that
 * member, in registry order. Built with an empty environment, as `suiteReportOf`.
 */
export function ciSuites(): { id: string; ci: SuiteCiV1<unknown> }[] {
  return Object.entries(SUITES).flatMap(([id, create]) => {
    const { ci } = create({ env: {}, root: process.cwd() });
    return ci ? [{ id, ci }] : [];
  });
}
