// The endpoint pool of one run: built from `--endpoints` (keys already read into the secrets), checked against its aliases.
import { resolve } from 'node:path';
import { InvalidInputError } from '#core/errors.js';
import { isRemoteModel } from '../models/decision-models.js';
import type { RunSpec } from '../run/run-spec.js';
import { createEndpointPool, type EndpointPool } from './endpoint-pool.js';
import type { PoolEndpoint } from './endpoints-file.js';

/**
 * The pool of a run's `--endpoints` (the endpoints come with their keys in `secrets`), or null without one. Refuses,
 * before anything is sent, an endpoint alias of the run (`aliases`: decision and attacker models) no endpoint serves.
 */
export function endpointPoolOf(
  spec: Pick<RunSpec, 'control'>,
  secrets: { endpoints?: readonly PoolEndpoint[] },
  aliases: readonly string[],
): EndpointPool | null {
  if (!spec.control.endpoints || !secrets.endpoints) return null;
  const pool = createEndpointPool(secrets.endpoints, { timeoutMs: spec.control.requestTimeoutMs });
  const unserved = pool.unserved(aliases.filter(isRemoteModel));
  if (unserved.length > 0)
    throw new InvalidInputError(resolve(spec.control.endpoints), [
      {
        path: 'endpoints',
        message: `no endpoint serves ${unserved.map((m) => `"${m}"`).join(', ')}: add it to an endpoint's "models", or leave "models" out`,
      },
    ]);
  return pool;
}
