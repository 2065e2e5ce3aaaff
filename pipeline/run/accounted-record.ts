// The slim copy of a unit record that the end of a grid run holds, for every unit, to account and summarise the run.
import { summaryRecordOf, type SummaryRecord } from '../../analysis/index.js';
import type { DecisionResponse } from '../models/decision-model.js';
import type { AccountedUnit } from './run-accounting.js';
import type { UnitRecord } from '../run-log/run-log.js';

/** One unit as the account and the summary read it. */
export type AccountedRecord = AccountedUnit & SummaryRecord;

const NO_NOTES: readonly string[] = Object.freeze([]);

/**
 * Returns a projection that keeps only what the account and the summary read of a unit record: no context records,
 * traces, reply text, sample, notes or cache key. The values it keeps are shared across records where they repeat
 * (key fields, scores, verdicts, the sampling parameters and headers, which are equal in every reply of a model, and
 * whole replies without token usage): 45k records parsed one at a time would otherwise each hold their own copies
 * (issue #18). The shared values are frozen, so a reader that tried to change one would throw.
 *
 * @example const records = readRunRecords(runDir, createAccountedRecordOf());
 */
export function createAccountedRecordOf(): (record: UnitRecord) => AccountedRecord {
  const strings = new Map<string, string>();
  const str = <T extends string>(value: T): T => {
    const known = strings.get(value);
    if (known !== undefined) return known as T;
    strings.set(value, value);
    return value;
  };
  const objects = new Map<string, object>();
  const shared = <T extends object>(value: T): T => {
    const text = JSON.stringify(value);
    const known = objects.get(text);
    if (known !== undefined) return known as T;
    objects.set(text, Object.freeze(value));
    return value;
  };
  const replyOf = ({ cacheKey: _unread, ...reply }: DecisionResponse): DecisionResponse => ({
    ...reply,
    text: '',
    sample: '',
    notes: NO_NOTES,
    requested: shared(reply.requested),
    sent: shared(reply.sent),
    headers: shared(reply.headers),
    ...(reply.responseModel !== null ? { responseModel: str(reply.responseModel) } : {}),
    ...(reply.finishReason !== null ? { finishReason: str(reply.finishReason) } : {}),
  });
  return (record) => {
    const slim = summaryRecordOf(record);
    const { key, poem, priorSafetyStep } = slim;
    const reply = record.reply ? replyOf(record.reply) : null;
    return {
      ...slim,
      key: { ...key, scenario: str(key.scenario), system: str(key.system), arm: str(key.arm), model: str(key.model) },
      scores: shared(slim.scores),
      context: shared(slim.context),
      ...(poem ? { poem: shared(poem) } : {}),
      ...(priorSafetyStep ? { priorSafetyStep: { ...priorSafetyStep, action: str(priorSafetyStep.action) } } : {}),
      // A reply without usage has nothing of its own left (the offline simulator's): equal ones are one object.
      reply: reply?.usage === null ? shared(reply) : reply,
      ...(record.status === 'error' ? { unitId: record.unitId } : {}),
      ...(record.outputFilter ? { outputFilter: { reusedUnit: record.outputFilter.reusedUnit } } : {}),
    };
  };
}
