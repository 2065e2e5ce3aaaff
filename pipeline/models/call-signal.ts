// A per-call abort signal that follows a long-lived one and lets go of it when the call ends.
//
// The OpenAI SDK adds an `abort` listener to the signal of every request and never removes it, so a run-wide stop
// signal handed to each call collects one listener (holding that call's controller) per call of the run: memory that
// grows with the run, and a slower `addEventListener` (Node walks the list for duplicates) on every call.

/** A signal for one call; `release()` detaches it from the parent when the call has ended. */
export interface ScopedSignal {
  /** Aborts when the parent aborts (at once if it already has); undefined when there is no parent. */
  signal: AbortSignal | undefined;
  /** Removes the listener on the parent; call it exactly when the call has settled. */
  release(): void;
}

// One listener per parent, whatever the number of calls in flight: the children of each parent signal, by parent.
const childrenOf = new WeakMap<AbortSignal, Set<AbortController>>();

function childrenFor(parent: AbortSignal): Set<AbortController> {
  let children = childrenOf.get(parent);
  if (!children) {
    const created = new Set<AbortController>();
    parent.addEventListener(
      'abort',
      () => {
        for (const child of created) child.abort(parent.reason);
        created.clear();
      },
      { once: true },
    );
    childrenOf.set(parent, created);
    children = created;
  }
  return children;
}

/**
 * A child of `parent` for one call: the SDK's listener lands on the child, which is dropped after the call. The parent
 * carries one listener in all (not one per call in flight, which would trip Node's leak warning past 10 at `-j 16`).
 *
 * @example
 * const scoped = scopedSignal(stop.signal);
 * try { await client.chat.completions.create(body, { signal: scoped.signal }); } finally { scoped.release(); }
 */
export function scopedSignal(parent: AbortSignal | undefined): ScopedSignal {
  if (!parent) return { signal: undefined, release: () => undefined };
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const children = childrenFor(parent);
  children.add(controller);
  return { signal: controller.signal, release: () => void children.delete(controller) };
}
