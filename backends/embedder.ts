// The embedding interface every memory system shares (the paper gave all systems one embedder).

/** Turns texts into vectors. Implementations are deterministic for a fixed model and input. */
export interface Embedder {
  /** Registry id plus model, e.g. `lexical-hash-v1` or `openai:text-embedding-3-small`; goes in the manifest. */
  readonly id: string;
  /** Vector length of every returned embedding. */
  readonly dimensions: number;
  /** Embeds each text; the result has one vector per input, in input order. */
  embed(texts: readonly string[]): Promise<number[][]>;
  /**
   * Where the vectors come from, for an embedder behind an endpoint: the server's base URL and the model the
   * server said it ran (the `model` of its last response; null before the first). Absent for in-process embedders.
   */
  readonly endpoint?: { baseURL: string; servedModel: string | null };
}
