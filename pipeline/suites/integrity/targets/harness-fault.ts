// An error that is the harness's fault (a broken adapter protocol), never the store's refusal: the cell becomes `error`.

/** Thrown by an adapter when the failure is ours (bad request, protocol violation), so it is not read as REJECTED. */
export class HarnessFaultError extends Error {
  override readonly name = 'HarnessFaultError';
}
