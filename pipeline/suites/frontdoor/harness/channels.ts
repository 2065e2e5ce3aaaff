// The three attacker channels (integrity.md §9) and the writers behind them: every write carries a source label and
// may carry an Ed25519 signature by the writer's key.
import { SOURCE_FIELD, signWrite, writerKey, type WriteMetadata, type WriterKey } from '../targets/provenance.js';

/** external: label `external`, unsigned · laundered: label `user`, signed by a key the store does not trust · agent-laundered: label `user`, signed by the agent. */
export const CHANNELS = ['external', 'laundered', 'agent-laundered'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The keys of one run: the agent signs what it saves (genuine memories, and the agent-laundered channel); the attacker holds only its own. */
export interface Writers {
  agent: WriterKey;
  attacker: WriterKey;
}

/** The run's writers, derived from fixed names so every run signs the same bytes the same way. */
export function createWriters(): Writers {
  return { agent: writerKey('agent'), attacker: writerKey('attacker') };
}

/** Metadata of a genuine memory: label `user`, signed by the agent, plus any tag the fixture gives it. */
export function genuineMetadata(
  writers: Writers,
  namespace: string,
  text: string,
  tags: WriteMetadata = {},
): WriteMetadata {
  return signWrite(writers.agent, namespace, text, { ...tags, [SOURCE_FIELD]: 'user' });
}

/** Metadata of an attacker write on `channel`, plus any tag the attacker self-assigns. */
export function channelMetadata(
  channel: Channel,
  writers: Writers,
  namespace: string,
  text: string,
  tags: WriteMetadata = {},
): WriteMetadata {
  if (channel === 'external') return { ...tags, [SOURCE_FIELD]: 'external' };
  // Laundered: the label is a lie the attacker can tell, the signature is one it can only make with its own key.
  const signer = channel === 'laundered' ? writers.attacker : writers.agent;
  return signWrite(signer, namespace, text, { ...tags, [SOURCE_FIELD]: 'user' });
}
