// The hunt's authorisation gate: runs before any target is touched and fails closed. Library targets (in this
// process) and loopback endpoints are allowed; any other network endpoint only when an operator consent file names it.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { EvalError } from '#core/errors.js';

/** The gate refused: the hunt does not start. */
export class HuntNotAuthorisedError extends EvalError {
  constructor(message: string) {
    super('hunt-not-authorised', `hunt not authorised: ${message}`);
  }
}

/** What the hunt is about to touch. */
export interface HuntScope {
  /** The `--target` value. */
  target: string;
  /** Registered library target ids. */
  libraryTargets: readonly string[];
  /** Every endpoint the hunt would send attacker text to (embedder, mutation model), as URLs. */
  endpoints: readonly string[];
  /** `--consent <file>`: the operator's consent file, if any. */
  consentFile?: string;
}

const consentSchema = z.strictObject({
  /** Who authorised the hunt. */
  operator: z.string().trim().min(1),
  /** Endpoints (origins) the operator controls and authorises, e.g. `https://mem.example.internal:8443`. */
  authorised: z.array(z.string().url()).min(1),
});

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

/** Whether a URL's host is this machine. An unparseable URL is not. */
function isLoopback(url: string): boolean {
  try {
    return LOOPBACK.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

const origin = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

function readConsent(path: string): z.infer<typeof consentSchema> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new HuntNotAuthorisedError(`consent file ${path} cannot be read as JSON (${(error as Error).message})`);
  }
  const parsed = consentSchema.safeParse(raw);
  if (!parsed.success)
    throw new HuntNotAuthorisedError(
      `consent file ${path} is not {"operator": "...", "authorised": ["<url>", ...]}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/**
 * Allows the hunt or throws `HuntNotAuthorisedError`. Returns one line per decision, for the hunt's report. A target
 * that is not a registered library target is refused unless it is a URL named in the consent file; every non-loopback
 * endpoint must be named in the consent file too. Anything unreadable or unparseable refuses.
 */
export function authoriseHunt(scope: HuntScope): string[] {
  const basis: string[] = [];
  let consent: z.infer<typeof consentSchema> | undefined;
  const consented = (url: string): boolean => {
    if (!scope.consentFile) return false;
    consent ??= readConsent(scope.consentFile);
    const wanted = origin(url);
    return wanted !== null && consent.authorised.some((entry) => origin(entry) === wanted);
  };
  if (scope.libraryTargets.includes(scope.target)) {
    basis.push(`target ${scope.target}: a library target in this process`);
  } else if (origin(scope.target) === null) {
    throw new HuntNotAuthorisedError(
      `target "${scope.target}" is neither a library target (${scope.libraryTargets.join(', ')}) nor a URL`,
    );
  } else if (!consented(scope.target)) {
    throw new HuntNotAuthorisedError(
      `network target ${scope.target} needs an operator consent file naming it (--consent <file>)`,
    );
  } else {
    basis.push(`target ${scope.target}: named in the consent file of ${consent?.operator}`);
  }
  for (const endpoint of scope.endpoints) {
    if (origin(endpoint) === null) throw new HuntNotAuthorisedError(`endpoint "${endpoint}" is not a URL`);
    if (isLoopback(endpoint)) basis.push(`endpoint ${origin(endpoint)}: loopback`);
    else if (consented(endpoint))
      basis.push(`endpoint ${origin(endpoint)}: named in the consent file of ${consent?.operator}`);
    else
      throw new HuntNotAuthorisedError(
        `endpoint ${origin(endpoint)} is on the network and no consent file names it (--consent <file>)`,
      );
  }
  return basis;
}
