// Test targets built on the reference target: a no-op edit (C3 must catch it), a store that cannot reopen, an unordered store.
import { createReferenceTarget } from '../../targets/reference-target.js';
import type { IntegrityTarget, RawAccess, TargetStore } from '../../targets/integrity-target.js';

/** Wraps the reference target, letting a test replace parts of each store and of the description. */
function wrapReference(
  id: string,
  change: (store: TargetStore) => TargetStore,
  describe: Partial<Awaited<ReturnType<IntegrityTarget['describe']>>> = {},
): IntegrityTarget {
  const inner = createReferenceTarget({ witness: true });
  return {
    id,
    describe: async () => ({ ...(await inner.describe()), ...describe }),
    createStore: async (settings) => change(await inner.createStore(settings)),
  };
}

/** Its T1 hook writes the record back exactly as it was: the edit runs, logs a command, and changes nothing. */
export function noOpEditTarget(): IntegrityTarget {
  return wrapReference('test-noop-edit', (store) => {
    const raw: RawAccess = {
      ...store.raw,
      async changeMeaning(record) {
        await store.raw.writeBody(record, record.body);
      },
    };
    return { ...store, raw };
  });
}

/** Starts once on a fresh store, then refuses every restart (a lock it never releases). */
export function cannotReopenTarget(): IntegrityTarget {
  return wrapReference('test-cannot-reopen', (store) => {
    let starts = 0;
    return {
      ...store,
      async start() {
        starts += 1;
        if (starts > 1) throw new Error('store is locked by a previous process');
        return store.start();
      },
    };
  });
}

/** Declares itself an unordered key-value store without metadata (integrity.md §6). */
export function unorderedTarget(): IntegrityTarget {
  return wrapReference('test-unordered', (store) => store, {
    unordered: 'test store: unordered key-value pairs, no metadata layer',
  });
}
