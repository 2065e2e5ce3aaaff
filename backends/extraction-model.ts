// The extraction model (types only): the LLM role that natural-mode ingestion uses inside a memory system.
// The paper used one unnamed extraction model for all systems; every record names which one produced it.

/** An edge an extractor found in an episode (Graphiti `extract_edges`). */
export interface ExtractedEdge {
  /** Source entity name, e.g. `Standard DEPLOY-APPROVAL-01`. */
  source: string;
  /** Target entity name, e.g. `the Production Deployment Pipeline`. */
  target: string;
  /** Relation type in SCREAMING_SNAKE_CASE, e.g. `REQUIRES`. */
  relation: string;
  /** The natural-language fact. */
  fact: string;
  /** World time the fact became true, when the episode says (present tense → the reference time). */
  validAt: Date | null;
  /** World time the fact stopped being true, when the episode says. */
  invalidAt: Date | null;
}

/** A stored memory offered to a consolidating manager (langmem) or a resolver (Graphiti). */
export interface ExistingMemory {
  /** Position or id the answer refers back to. */
  id: string;
  /** The stored text. */
  content: string;
}

/** langmem-style consolidation: rewrite memories in place and/or insert new ones (deletes off). */
export interface Consolidation {
  updates: { id: string; content: string }[];
  inserts: string[];
}

/**
 * The LLM role used by natural-mode ingestion. Each operation is one of the calls a real system makes;
 * systems that own their prompts (mem0) answer them through `extractFacts` offline, or call the endpoint
 * model directly with their own prompts.
 */
export interface ExtractionModel {
  /** `sim-extractor-v3` for the offline simulator, `openai:<model>` for an endpoint. Written into every record. */
  readonly id: string;
  /** True for the simulator: natural-mode results that used it are simulated too. */
  readonly simulated: boolean;
  /**
   * The endpoint and model behind an endpoint extractor, for a library that runs its own ingestion prompts with it
   * (cognee-py's cognify). Absent for the simulator. The key goes only into a child process's environment.
   */
  connection?(): { baseURL: string; model: string; apiKey: string };
  /** Atomic facts stated in a text (mem0 additive extraction, cognee). */
  extractFacts(text: string): Promise<string[]>;
  /** Entity-to-entity edges in an episode (Graphiti / Zep). */
  extractEdges(input: {
    episode: string;
    referenceTime: Date;
    previousEpisodes: readonly string[];
  }): Promise<ExtractedEdge[]>;
  /** Graphiti `resolve_edge`: which candidates the new fact duplicates and which it contradicts (by id; contradicted ids may come from either list). */
  resolveEdge(input: {
    fact: string;
    duplicateCandidates: readonly ExistingMemory[];
    invalidationCandidates: readonly ExistingMemory[];
  }): Promise<{ duplicates: string[]; contradicted: string[] }>;
  /** langmem memory manager, deletes off: how a new message changes the stored memories. */
  consolidate(input: { existing: readonly ExistingMemory[]; message: string }): Promise<Consolidation>;
  /**
   * The chat endpoint this model runs on, for a library that sends its own prompts to it (graphiti-py, langmem-py):
   * the base URL (null: the OpenAI SDK's default), the model sent as `model`, and the API key (never recorded or
   * sent in a request). Absent for the simulator, which cannot answer a library's own prompts.
   */
  chatEndpoint?(): ChatEndpoint;
}

/** An OpenAI-compatible chat endpoint as a library's own client is configured with it. */
export interface ChatEndpoint {
  baseURL: string | null;
  model: string;
  apiKey: string | undefined;
}
