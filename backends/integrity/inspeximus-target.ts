// Targets `inspeximus` (receipts off, the default) and `inspeximus-receipts` (receipts on): the real PyPI library.
import { inspeximusRawAccess } from './inspeximus-raw.js';
import type { IntegrityTarget } from './integrity-target.js';
import { createPythonStoreTarget } from './python-store-target.js';

/**
 * Creates the inspeximus target through the store driver (backends/python/store_adapters/inspeximus_store.py).
 * With receipts on, the detection point is `verify_writes()`, an audit; the receipt chain's head sits in the
 * process's config home, which the harness keeps outside the store directory (the attacker holds the store only).
 *
 * @example const target = createInspeximusTarget(process.cwd(), { receipts: true });
 */
export function createInspeximusTarget(root: string, options: { receipts: boolean }): IntegrityTarget {
  return createPythonStoreTarget({
    id: options.receipts ? 'inspeximus-receipts' : 'inspeximus',
    adapter: 'inspeximus_store',
    config: { receipts: options.receipts },
    root,
    raw: inspeximusRawAccess,
  });
}
