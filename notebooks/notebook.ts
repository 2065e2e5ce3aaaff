// The notebook interface (types only): a literate analysis that turns run directories into Markdown.
import type { AnalysedRun } from '../analysis/compare-command.js';

/**
 * One notebook. It reads the runs it is given (stored logs and the summaries recomputed from them) and nothing
 * else: no network, no memory backend, no model. Its output is Markdown.
 */
export interface Notebook {
  /** The name on the command line (`pnpm notebook <name> <run-dir...>`); equals the file name. */
  readonly name: string;
  /** The question it answers, in one sentence (listed by the runner). */
  readonly question: string;
  /** Builds the Markdown report from the runs, in the order given. Throws on runs it cannot use, naming the run. */
  render(runs: readonly AnalysedRun[]): string;
}
