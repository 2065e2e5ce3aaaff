// Which retrieved records carry a statement the application revoked: the ground truth of the revocation ledger's
// measurement (issue #19 item 2), from the scenario's own text, independent of the ledger that is measured.

/** Lower-cased words of a text, one space apart (punctuation, quoting and spacing do not count). */
const words = (text: string): string =>
  (
    text
      .normalize('NFC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).join(' ');

/**
 * True when `text` contains, word for word, one sentence of `revoked` (a fact extracted from it, a chunk holding it,
 * a value wrapping it): what the application revoked reached the read in this record.
 *
 * @example carriesRevokedStatement("{'content': 'Approved shortcut.'}", 'MFA may be waived. Approved shortcut.') // true
 */
export function carriesRevokedStatement(text: string, revoked: string): boolean {
  const haystack = ` ${words(text)} `;
  return revoked
    .split(/(?<=[.!?])\s+|\n+/)
    .map(words)
    .some((sentence) => sentence !== '' && haystack.includes(` ${sentence} `));
}
