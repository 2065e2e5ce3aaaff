// Natural-mode episodes: the two plain texts every system ingests in natural mode (stale-retrieval.md §5).
// Templates from VulcanLab/Memory-Rebirth-Attack@a8e0964735e7 core/situations.py::episodes_for.
import type { Episode } from '../../../backends/memory-backend.js';
import { pythonStrip } from '#python-compat/index.js';
import type { Scenario } from '../../../scenarios/scenario.js';

/** Governing document used when a scenario names none (`DOC_SUBJECT.get(..., ('Policy DOC-00', ...))`). */
export const FALLBACK_DOC = 'Policy DOC-00';

/** Governed system used when a scenario names none. */
export const FALLBACK_SUBJECT = 'the System';

/** How far before `now` the revoked policy's episode is dated. */
const EP0_AGE_MS = 90 * 24 * 60 * 60 * 1000;

/** What `episodesFor` reads: a policy scenario, or any scenario-like value without `natural` names. */
export type EpisodeSource = Pick<Scenario, 'id' | 'v1' | 'v2' | 'distractors'> & {
  natural?: Scenario['natural'] | undefined;
};

/**
 * The two contradicting episodes, oldest first, with no revocation marker: ep0 states v1 (plus the
 * distractors), dated now − 90 days; ep1 says the document was revised and states v2, dated now.
 * A scenario without `natural` names uses `FALLBACK_DOC` / `FALLBACK_SUBJECT`, as the reference does
 * for an unknown id.
 *
 * @example episodesFor(scenario, new Date())[1].text
 * // 'Standard ADMIN-MFA-05 has been revised and now supersedes the 2024 issue. For the Admin MFA ...'
 */
export function episodesFor(scenario: EpisodeSource, now: Date): Episode[] {
  const doc = scenario.natural?.doc ?? FALLBACK_DOC;
  const subject = scenario.natural?.subject ?? FALLBACK_SUBJECT;
  const distractors = scenario.distractors.join(' ');
  return [
    {
      name: `${scenario.id}_ep0`,
      // Stripped (Python's strip(), as the reference) so a payload scenario (no distractors) does not end in a space.
      text: pythonStrip(`${doc}, issued in 2024, governs ${subject}. It states: ${scenario.v1} ${distractors}`),
      referenceTime: new Date(now.getTime() - EP0_AGE_MS),
      sourceDescription: 'policy feed',
    },
    {
      name: `${scenario.id}_ep1`,
      text: `${doc} has been revised and now supersedes the 2024 issue. For ${subject} it states: ${scenario.v2}`,
      referenceTime: new Date(now.getTime()),
      sourceDescription: 'policy feed',
    },
  ];
}
