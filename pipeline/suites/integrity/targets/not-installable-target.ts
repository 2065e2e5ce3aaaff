// A row of agmi's table whose package cannot be installed here: present in every scorecard, every cell not evaluable
// with the reason, never measured by a stand-in (issue #28: the MythologIQ Agent Memory reference runtime).
import type { IntegrityTarget } from './integrity-target.js';

/** What the row is and why it cannot be installed. */
export interface NotInstallable {
  id: string;
  /** The row as agmi prints it. */
  label: string;
  /** Where the code is published and at which version. */
  published: string;
  /** Why it cannot run here. */
  reason: string;
}

/**
 * Creates a target that describes the row and is unavailable (not a missing prerequisite the user could install: its
 * cells are `not-evaluable` and the command goes on with the other targets).
 *
 * @example createNotInstallableTarget({ id: 'mythologiq-agent-memory', label, published, reason })
 */
export function createNotInstallableTarget(row: NotInstallable): IntegrityTarget {
  return {
    id: row.id,
    async describe() {
      return {
        label: `${row.label} (not installable here)`,
        model: false,
        versions: {},
        store: 'not installed',
        config: { published: row.published },
        detection: 'read',
        contexts: 2,
        tooling: 'none',
      };
    },
    async unavailable() {
      return { reason: row.reason };
    },
    async createStore() {
      throw new Error(`${row.id} cannot be installed here: ${row.reason}`);
    },
  };
}

/** The MythologIQ Agent Memory reference runtime of agmi's table. */
export const MYTHOLOGIQ: NotInstallable = {
  id: 'mythologiq-agent-memory',
  label: 'MythologIQ Agent Memory reference runtime, SQLite canonical substrate, read path',
  published: 'agent-memory-reference 0.2.0 at f2aef57, github.com/MythologIQ-Labs-LLC/agent-memory',
  reason:
    'published only as a git repository (MythologIQ-Labs-LLC/agent-memory, agent-memory-reference 0.2.0 at f2aef57), on no package registry; this machine reaches registries only',
};
