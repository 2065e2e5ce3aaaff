// inspeximus (PyPI) as a front-door target: one store shared by every user, scoped by the library's own user_id, in
// three configurations (default lexical recall; trusted_only keyed on the first-party label; keyed on an attested key).
import { join } from 'node:path';
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { INSPEXIMUS_PIN, INSPEXIMUS_VERSION } from '../../../../backends/inspeximus-version.js';
import {
  directoryName,
  recallOptions,
  toInspeximusRecord,
  type RecallItem,
} from '../../../../backends/inspeximus-records.js';
import type { FieldValue, InsertReport, MemoryBackend, RecordedWarning } from '../../../../backends/memory-backend.js';
import { createPythonMemoryProcess } from '../../../../backends/python/python-memory-process.js';
import {
  rawKeyPair,
  rawPublicKeyHex,
  signerOf,
  SOURCE_FIELD,
  type RawKeyPair,
  type WriteMetadata,
  type WriterKey,
} from './provenance.js';
import type { FrontdoorTargetSettings } from './target-settings.js';

/** `default` = `inspeximus`, `provenance` = `inspeximus-provenance`, `keyed` = `inspeximus-keyed`. */
export type InspeximusFrontdoorVariant = 'default' | 'provenance' | 'keyed';

/** Settings of `createInspeximusFrontdoorBackend`. */
export type InspeximusFrontdoorSettings = FrontdoorTargetSettings & {
  variant: InspeximusFrontdoorVariant;
  /** Repository root holding `.cache/python/venv` and the driver; defaults to this checkout. */
  root?: string;
  /**
   * Another release, in a store environment of its own (backends/python/store-envs.ts): agmi's 3.0.0 is
   * `{env: 'inspeximus-3.0.0', version: '3.0.0'}`. Absent: the main venv's pinned INSPEXIMUS_VERSION.
   */
  release?: { env: string; version: string };
};

/** The first-party label the provenance row trusts (genuine memories carry it; so do both laundered channels). */
export const FIRST_PARTY_LABEL = 'user';

const PROJECT_ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const IDS: Record<InspeximusFrontdoorVariant, string> = {
  default: 'inspeximus',
  provenance: 'inspeximus-provenance',
  keyed: 'inspeximus-keyed',
};

/** One `remember` call of the driver's insert op (store_adapters/inspeximus_memory.py). */
export interface FrontdoorRememberStep {
  remember: {
    text: string;
    user_id: string;
    meta: Record<string, FieldValue>;
    /** The write's source label as inspeximus provenance (`source={'doc': label}`); provenance and keyed rows. */
    source?: { doc: string };
    /** The writer's key: the library's `attest(text, secret, doc)` then `remember(attestation=(pubkey, sig))`. */
    attest?: RawKeyPair;
  };
}

/**
 * The trust root of a configuration as inspeximus `trust_seeds`: none (default), the first-party label
 * (provenance), or `key:<public key hex>` of every trusted writer key (keyed).
 */
export function trustSeeds(variant: InspeximusFrontdoorVariant, trustedKeys: readonly string[]): string[] {
  if (variant === 'default') return [];
  if (variant === 'provenance') return [FIRST_PARTY_LABEL];
  return trustedKeys.map((pem) => `key:${rawPublicKeyHex(pem)}`);
}

/**
 * The library call of one front-door write. Every row stores the writer metadata (label, signature, tags) in `meta`
 * and scopes it by `user_id` (the namespace as a plain name, `directoryName`). The provenance and keyed rows also record the label as `source={'doc': label}`. The
 * keyed row has the write attested by the writer whose key signed it (the library runs on the writer's side: it
 * signs with `attest()` and `remember()` verifies); an unsigned write is not attested. A signature that verifies
 * under none of the run's writer keys throws: the target was not handed that writer's key, and attesting nothing
 * would silently move the write to the untrusted side.
 */
export function rememberStep(
  variant: InspeximusFrontdoorVariant,
  writers: readonly WriterKey[],
  namespace: string,
  text: string,
  metadata: WriteMetadata,
): FrontdoorRememberStep {
  const step: FrontdoorRememberStep['remember'] = { text, user_id: directoryName(namespace), meta: { ...metadata } };
  const label = metadata[SOURCE_FIELD];
  if (variant !== 'default' && typeof label === 'string' && label !== '') step.source = { doc: label };
  if (variant === 'keyed' && metadata.signature !== undefined) {
    const signer = signerOf(writers, namespace, text, metadata);
    if (!signer)
      throw new EvalError(
        'frontdoor-unknown-writer',
        `${IDS[variant]}: a write to "${namespace}" carries a signature no writer key handed to the target verifies; cannot attest it as its writer`,
      );
    step.attest = rawKeyPair(signer);
  }
  return { remember: step };
}

const SUMMARIES: Record<InspeximusFrontdoorVariant, string> = {
  default: 'default configuration, lexical recall: remember(text, user_id, meta); recall(query, k, user_id[, where])',
  provenance:
    "provenance recorded, trusted_only keyed on the first-party label: remember(text, user_id, meta, source={'doc': label}); trust_seeds={'user'}; recall(query, k, user_id, trusted_only=True[, where])",
  keyed:
    "trusted_only keyed on the writer's attested Ed25519 key: remember(text, user_id, meta, source={'doc': label}, attestation=(pubkey, attest(text, writer secret, label))); trust_seeds={'key:<agent public key>'}; recall(query, k, user_id, trusted_only=True[, where])",
};

/**
 * Creates one inspeximus front-door configuration: one store (`shared/memory.db`) for every user of the instance in
 * one Python process (the main venv of `bash .ci/install`, or the store environment of `release`), no embedder (the library's default; at these sizes
 * `mode="auto"` ranks lexically), HOME private so the user's inspeximus config is empty. A namespace is the library's
 * `user_id`: written with `remember(user_id=...)`, read with `recall(user_id=...)`, which drops other users' records
 * before ranking, and reset with `forget(where=<its user_id>)`. The trust root (`trust_seeds`) is set on the store
 * handle, as the library's docs do. Reads are `recall(query, k=limit)` at the library's defaults plus `user_id`, the
 * metadata filter as `where`, and `trusted_only=True` on the provenance and keyed rows.
 *
 * @example
 * const backend = createInspeximusFrontdoorBackend({ ...settings, variant: 'keyed' });
 * await backend.open();
 */
export function createInspeximusFrontdoorBackend(settings: InspeximusFrontdoorSettings): MemoryBackend {
  const { variant } = settings;
  const id = IDS[variant];
  const seeds = trustSeeds(variant, settings.trustedKeys);
  const writers = settings.writerKeys ?? [];
  const version = settings.release?.version ?? INSPEXIMUS_VERSION;
  const python = createPythonMemoryProcess({
    system: id,
    adapter: 'inspeximus_memory',
    pin: settings.release ? { name: INSPEXIMUS_PIN.name, version } : INSPEXIMUS_PIN,
    ...(settings.release ? { env: settings.release.env } : {}),
    root: settings.root ?? PROJECT_ROOT,
    workDir: join(settings.workDir, directoryName(settings.runId)),
    config: { store: 'shared', trust_seeds: seeds },
  });
  const unused: RecordedWarning = {
    type: 'unsupported',
    feature: 'embedder',
    message: `inspeximus recalls lexically without an embedder (its default); the run's embedder ${settings.embedder.id} is not used`,
  };
  return {
    id,
    description: {
      summary: `inspeximus ${version} (PyPI) in a Python process${settings.release ? ` (store environment ${settings.release.env})` : ''}, one store shared by every user (user_id), ${SUMMARIES[variant]}`,
      modes: {
        direct: { supported: true },
        natural: { supported: false, reason: 'the front door writes each memory verbatim' },
      },
      exposure: { rule: 'lexical' },
      storeFilter: null,
      statusFields: [],
      // One store holds every user: the lexical statistics are the store's.
      independentNamespaces: false,
    },
    async open() {
      if (variant !== 'default' && seeds.length === 0)
        throw new EvalError('frontdoor-no-trust-root', `${id}: no trusted key was given, so trusted_only has no root`);
      await python.open();
    },
    async insert(request): Promise<InsertReport> {
      if (request.writes.mode !== 'direct')
        throw new UnsupportedFeatureError(id, 'natural writes', 'the front door writes each memory verbatim');
      if (request.derivedFrom !== undefined)
        throw new UnsupportedFeatureError(id, 'derivedFrom', 'provenance lists are not mapped onto inspeximus here');
      if (request.writes.revoked.length > 0)
        throw new UnsupportedFeatureError(id, 'revoked facts', 'the front door writes only current memories');
      const steps = request.writes.current.map((text) =>
        rememberStep(variant, writers, request.namespace, text, request.metadata ?? {}),
      );
      const result = await python.request<{ stored: number }>('insert', directoryName(request.namespace), { steps });
      return { stored: result.stored, extractor: 'none', warnings: [unused, ...python.takeNotes()] };
    },
    async search(request) {
      if (request.taint) throw new UnsupportedFeatureError(id, 'taint', 'provenance lists are not mapped here');
      const options = {
        ...recallOptions(id, request, false),
        user_id: directoryName(request.namespace),
        ...(variant === 'default' ? {} : { trusted_only: true }),
      };
      const result = await python.request<{ records: RecallItem[] }>('search', directoryName(request.namespace), {
        query: request.query,
        k: request.limit,
        options,
      });
      return { records: result.records.map((item) => toInspeximusRecord(item, null)), warnings: python.takeNotes() };
    },
    async reset(namespace) {
      await python.reset(directoryName(namespace));
    },
    async close() {
      await python.close();
    },
  };
}
