// What every front-door target receives (its own file, so a target's backend and the registry that loads it lazily
// do not import each other).
import type { BackendSettings } from '../../../../backends/memory-backend.js';
import type { WriterKey } from './provenance.js';

/** Settings every front-door target receives: the usual backend settings plus the store's trust root. */
export type FrontdoorTargetSettings = BackendSettings & {
  /** SPKI PEM public keys of genuine writers (the agent's); only a store that verifies signatures reads them. */
  trustedKeys: readonly string[];
  /**
   * The keys every writer of the run holds (the agent's and the attacker's), for a library that attests on the
   * writer's side (inspeximus-keyed makes each write as the client of the writer whose key signed it; the library
   * verifies and decides). Absent: no target can act as a writer's client.
   */
  writerKeys?: readonly WriterKey[];
};
