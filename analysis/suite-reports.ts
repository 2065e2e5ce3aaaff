// The renderers `pnpm report` uses for suite run directories: the `suiteReport` of every registered run kind
// (analysis/run-kinds/index.ts) that has one.
import type { SuiteReportV1 } from '../pipeline/index.js';
import { RUN_KINDS } from './run-kinds/index.js';

/** Renderers by suite id (the `suite` field of a suite run's manifest.json). */
export const SUITE_REPORTS: ReadonlyMap<string, SuiteReportV1<unknown>> = new Map(
  RUN_KINDS.flatMap((kind) => (kind.suiteReport ? [[kind.id, kind.suiteReport] as const] : [])),
);
