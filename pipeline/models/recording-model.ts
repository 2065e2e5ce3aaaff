// A decision model that records each call it makes (reply without its text), for a unit's calls, tokens and spend.
import type { DecisionModel } from './decision-model.js';
import type { RecordedCall } from '../suites/follow-ups/follow-up-log.js';

/** `model`, with every reply's call pushed onto `calls` (text left out) as it arrives. */
export function recordingModel(model: DecisionModel, calls: RecordedCall[]): DecisionModel {
  return {
    ...model,
    decide: async (request) => {
      const reply = await model.decide(request);
      const { text: _text, ...call } = reply;
      calls.push(call);
      return reply;
    },
  };
}
