// The language model a Python library's own ingestion runs on: the run's extraction model's endpoint, or none.
import type { ExtractionModel } from '../extraction-model.js';
import type { ModeSupport } from '../memory-backend.js';

/** What a Python memory system passes to its adapter for natural mode, or why natural mode is `n/a`. */
export interface LibraryLlm {
  /** `supported` when the extraction model runs on an endpoint; else `n/a` with the reason. */
  natural: ModeSupport;
  /** `llm: {base_url, model}` for the adapter's open config (absent: the adapter's LLM refuses every call). */
  config: { llm?: { base_url: string | null; model: string } };
  /** The API key, passed to the process's environment only (`STALEBENCH_LLM_API_KEY`), never in a request. */
  environment: Record<string, string>;
}

/**
 * The library's LLM for natural mode: the endpoint of `--extraction-model <alias>` (the library sends its own prompts
 * there), or, with the offline simulator, natural mode `n/a` with `why` (the simulator answers stalebench's
 * operations, not a library's prompts: never a silent substitute).
 *
 * @example
 * const llm = libraryLlm(extraction, "graphiti-core's add_episode needs a language model");
 */
export function libraryLlm(extraction: ExtractionModel, why: string): LibraryLlm {
  const endpoint = extraction.chatEndpoint?.();
  if (!endpoint)
    return {
      natural: {
        supported: false,
        reason: `${why}; ${extraction.id} answers stalebench's own operations, not the library's prompts (run natural mode with --extraction-model <alias> on your endpoint)`,
      },
      config: {},
      environment: {},
    };
  return {
    natural: { supported: true },
    config: { llm: { base_url: endpoint.baseURL, model: endpoint.model } },
    environment: endpoint.apiKey === undefined ? {} : { STALEBENCH_LLM_API_KEY: endpoint.apiKey },
  };
}
