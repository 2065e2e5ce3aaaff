// The revocation ledger as a defence (issues #14 item 4, #19 item 2): a status the application's ledger does not bind
// is not trusted. Withholds every record the ledger binds a revocation of, or whose content or ledger fails to verify.
import { UnsupportedFeatureError } from '#core/errors.js';
import type { DefenceV1, ScreenInput, ScreenVerdict } from './defence-v1.js';

/** Ledger statuses that keep a record out of the context. */
const WITHHELD = new Set(['revoked', 'altered', 'broken']);

function screen({ records, ledger }: ScreenInput): ScreenVerdict {
  if (!ledger || ledger.length !== records.length)
    throw new UnsupportedFeatureError(
      'defence revocation-ledger',
      'a read without ledger verdicts',
      'the read was not made through the revocation ledger client (the grid records its verdicts with each probe)',
    );
  const verdict: ScreenVerdict = { kept: [], withheld: [], notes: [] };
  records.forEach((record, index) => {
    const judged = ledger[index]!;
    if (WITHHELD.has(judged.status))
      verdict.withheld.push({ index, text: record.text, reason: judged.reason, stage: 'ledger' });
    else verdict.kept.push(index);
  });
  const unknown = ledger.filter((judged) => judged.status === 'unknown').length;
  if (unknown > 0)
    verdict.notes.push(`${unknown} of ${records.length} records were never bound by the revocation ledger; kept`);
  return verdict;
}

/**
 * The `revocation-ledger` arm: the default read judged by the ledger. `ledger-filter` puts it on the store filter's
 * read and `ledger-guard` in front of the stale guard (its stage 1 source for stores that return no status).
 */
export const revocationLedgerDefence = {
  specificationVersion: 'v1',
  id: 'revocation-ledger',
  label: 'revocation ledger',
  arm: { referenceName: 'revocation_ledger' },
  uses: [],
  create: () => ({ ledger: 'consult', screen }),
} as const satisfies DefenceV1;
