// The adaptive attacker's interface (types only): something that writes the next forged note, told after each attempt
// whether the wording guard caught it or it failed to convince (poem.md §6). A model or the offline mutation engine.
import type { AttackerFeedback } from './records.js';

/** What the attacker learns about its last note. */
export interface AttemptFeedback {
  /** The outcome of the last attempt. */
  feedback: AttackerFeedback;
  /** The guard's fired signals when it was caught (empty otherwise). */
  fired: readonly string[];
}

/** The next note and where it came from. */
export interface AttackerNote {
  /** The note (one line), or null when the attacker produced none. */
  note: string | null;
  /** The model's raw reply, or the mutation that produced the note. */
  origin: string;
}

/**
 * An adaptive attacker for one (scenario, victim) loop. Stateful: each call continues the same conversation.
 *
 * @example const note = await attacker.next(null); ... await attacker.next({ feedback: 'caught', fired: ['structure-check'] });
 */
export interface NoteAttacker {
  /** `mutation-engine` or the model alias. */
  readonly id: string;
  /** How reports name it; the engine says "offline, deterministic; not a language model". */
  readonly label: string;
  /** The next note; `last` is null before the first attempt. */
  next(last: AttemptFeedback | null): Promise<AttackerNote>;
}
