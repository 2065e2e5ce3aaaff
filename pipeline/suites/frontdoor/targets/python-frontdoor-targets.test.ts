import { createPrivateKey, createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EvalError } from '#core/errors.js';
import { channelMetadata, createWriters, genuineMetadata, type Channel } from '../harness/channels.js';
import { INSPEXIMUS_VERSION } from '../../../../backends/inspeximus-version.js';
import { FIRST_PARTY_LABEL, rememberStep, trustSeeds } from './inspeximus-frontdoor-backend.js';
import { LANGGRAPH_STORE_PY_RELEASES } from './langgraph-store-py-backend.js';
import { rawKeyPair, signWrite, writerKey } from './provenance.js';
import { FRONTDOOR_TARGET_IDS, frontdoorTarget } from './targets.js';

const writers = createWriters();
const all = [writers.agent, writers.attacker];
const ns = 'fd-x-victim';
const text = 'Send the invoices to Calder Metals.';
// The raw public key as the JWK's `x` (base64url), an encoding independent of the DER slicing under test.
const jwkHex = (pem: string) =>
  Buffer.from(createPublicKey(pem).export({ format: 'jwk' }).x as string, 'base64url').toString('hex');

describe('front-door inspeximus rows: our channels and keys on the library’s own mechanisms', () => {
  it('raw key pairs are the writer’s own Ed25519 key', () => {
    const { secret, pubkey } = rawKeyPair(writers.agent);
    expect(pubkey).toBe(jwkHex(writers.agent.publicKeyPem));
    const rebuilt = createPrivateKey({
      key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(secret, 'hex')]),
      format: 'der',
      type: 'pkcs8',
    });
    expect(createPublicKey(rebuilt).export({ type: 'spki', format: 'pem' })).toBe(writers.agent.publicKeyPem);
    expect(rawKeyPair(writers.attacker).pubkey).not.toBe(pubkey);
  });

  it('trust roots: none by default, the first-party label, or key:<hex> of each trusted key', () => {
    expect(trustSeeds('default', [writers.agent.publicKeyPem])).toEqual([]);
    expect(trustSeeds('provenance', [writers.agent.publicKeyPem])).toEqual(['user']);
    expect(FIRST_PARTY_LABEL).toBe(genuineMetadata(writers, ns, text).source);
    expect(trustSeeds('keyed', [writers.agent.publicKeyPem])).toEqual([`key:${jwkHex(writers.agent.publicKeyPem)}`]);
  });

  const step = (variant: 'default' | 'provenance' | 'keyed', channel: Channel | 'genuine') =>
    rememberStep(
      variant,
      all,
      ns,
      text,
      channel === 'genuine'
        ? genuineMetadata(writers, ns, text)
        : channelMetadata(channel, writers, ns, text, { verified: true }),
    ).remember;

  it('default: the label, signature and tags go to meta only; user_id is the namespace', () => {
    const written = step('default', 'laundered');
    expect(written.user_id).toBe(ns);
    expect(written.meta).toMatchObject({ source: 'user', verified: true });
    expect(typeof written.meta.signature).toBe('string');
    expect(written.source).toBeUndefined();
    expect(written.attest).toBeUndefined();
  });

  it('provenance: the label becomes source={doc}; nothing is attested', () => {
    expect([step('provenance', 'external').source, step('provenance', 'external').attest]).toEqual([
      { doc: 'external' },
      undefined,
    ]);
    expect(step('provenance', 'laundered').source).toEqual({ doc: 'user' });
    expect(step('provenance', 'agent-laundered').attest).toBeUndefined();
  });

  it('keyed: each signed write is attested by the writer whose key signed it; unsigned ones by nobody', () => {
    const agent = rawKeyPair(writers.agent);
    const attacker = rawKeyPair(writers.attacker);
    expect(step('keyed', 'genuine').attest).toEqual(agent);
    expect(step('keyed', 'agent-laundered').attest).toEqual(agent);
    expect(step('keyed', 'laundered').attest).toEqual(attacker);
    expect(step('keyed', 'external').attest).toBeUndefined();
    expect(step('keyed', 'external').source).toEqual({ doc: 'external' });
  });

  it('keyed: a signature by a key the target was not handed throws instead of writing it unattested', () => {
    const stranger = signWrite(writerKey('stranger'), ns, text, { source: 'user' });
    expect(() => rememberStep('keyed', all, ns, text, stranger)).toThrow(EvalError);
    expect(() => rememberStep('keyed', [], ns, text, genuineMetadata(writers, ns, text))).toThrow(
      /no writer key handed to the target verifies/,
    );
  });
});

describe('front-door Python targets in the registry', () => {
  it('are registered after the in-process ones, each labelled with its exact version', async () => {
    const ids = [
      'inspeximus',
      'inspeximus-provenance',
      'inspeximus-keyed',
      'inspeximus@3.0.0',
      'inspeximus-provenance@3.0.0',
      'inspeximus-keyed@3.0.0',
      'langgraph-store-py',
      'langgraph-store-py@3.1.2',
      'mem0-py',
      'mem0-py@2.2.1',
      'letta-archival',
    ];
    expect(FRONTDOOR_TARGET_IDS.slice(-ids.length)).toEqual(ids);
    const labels = await Promise.all(ids.map(async (id) => (await frontdoorTarget(id)).version()));
    expect(labels).toEqual([
      `inspeximus ${INSPEXIMUS_VERSION} (the real library, PyPI), default configuration, lexical recall`,
      `inspeximus ${INSPEXIMUS_VERSION} (the real library, PyPI), provenance recorded and trusted_only keyed on the first-party label`,
      `inspeximus ${INSPEXIMUS_VERSION} (the real library, PyPI), the same filter keyed on an Ed25519 key the writer attests with`,
      'inspeximus 3.0.0 (the real library, PyPI), default configuration, lexical recall',
      'inspeximus 3.0.0 (the real library, PyPI), provenance recorded and trusted_only keyed on the first-party label',
      'inspeximus 3.0.0 (the real library, PyPI), the same filter keyed on an Ed25519 key the writer attests with',
      `langgraph-checkpoint-sqlite ${LANGGRAPH_STORE_PY_RELEASES.agmi.version} SqliteStore, sqlite-vec vector index (the real library, PyPI)`,
      `langgraph-checkpoint-sqlite ${LANGGRAPH_STORE_PY_RELEASES.latest.version} SqliteStore, sqlite-vec vector index (the real library, PyPI)`,
      'mem0ai 2.0.20 (Python, the real library), local Qdrant store, infer=False',
      'mem0ai 2.2.1 (Python, the real library, newest on PyPI), local Qdrant store, infer=False',
      'letta 0.16.8 archival memory (Python, the real library), one agent per user',
    ]);
    expect(ids.slice(-4)[0]).toBe(`langgraph-store-py@${LANGGRAPH_STORE_PY_RELEASES.latest.version}`);
    const targets = await Promise.all(ids.map(frontdoorTarget));
    // inspeximus ranks lexically (no embedder); the LangGraph store ranks by the run's embedder, so a lexical
    // stand-in is labelled on its row.
    expect(targets.map((target) => [target.python, target.ranksByEmbedder])).toEqual([
      ...Array(6).fill([true, false]),
      [true, true],
      [true, true],
      [true, true],
      [true, true],
      [true, true],
    ]);
  });
});
