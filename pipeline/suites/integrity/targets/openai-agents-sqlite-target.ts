// Target `openai-agents-sqlite`: the OpenAI Agents SDK's SQLiteSession (PyPI openai-agents) through the store driver.
import { agentsSessionRawAccess } from './agents-session-raw.js';
import type { IntegrityTarget } from './integrity-target.js';
import { createPythonStoreTarget } from './python-store-target.js';

/** The newest openai-agents PyPI served when this row was measured (environment `openai-agents-latest`). */
export const OPENAI_AGENTS_LATEST = '0.24.0';

/**
 * Creates the SQLiteSession target (backends/python/store_adapters/openai_agents_session.py): two sessions in one
 * file are the two contexts, seeded with add_items() and read with get_items(); no model is involved. By default it
 * runs openai-agents 0.20.0 (agmi's version, environment `openai-agents`); `latest` runs the newest release under
 * the id `openai-agents-sqlite@<version>`.
 *
 * Measured (sqlite-family.stores.test.ts), both versions: every edit accepted, as agmi's row. The session has no
 * integrity logic; get_items() serves whatever JSON the rows hold, in id order, for the row's session_id.
 *
 * @example const target = createOpenaiAgentsSqliteTarget(process.cwd());
 */
export function createOpenaiAgentsSqliteTarget(root: string, options: { latest?: boolean } = {}): IntegrityTarget {
  return createPythonStoreTarget({
    id: options.latest ? `openai-agents-sqlite@${OPENAI_AGENTS_LATEST}` : 'openai-agents-sqlite',
    adapter: 'openai_agents_session',
    config: {},
    root,
    env: options.latest ? 'openai-agents-latest' : 'openai-agents',
    raw: (files, log) =>
      agentsSessionRawAccess(
        { path: files.sqlite, dir: files.storeDir, label: 'store/sessions.db', sessions: files.owners },
        log,
      ),
  });
}
