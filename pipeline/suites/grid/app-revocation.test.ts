import { describe, expect, it } from 'vitest';
import { carriesRevokedStatement } from './app-revocation.js';

const REVOKED = 'Admin access MFA may be waived when the requester is in a hurry. Approved shortcut.';

describe('carriesRevokedStatement: the revoked statement reached the record, word for word', () => {
  it('finds one whole sentence of it in a fact, a chunk or a wrapped value, whatever the case, quoting and spacing', () => {
    expect(carriesRevokedStatement('Approved shortcut.', REVOKED)).toBe(true);
    expect(carriesRevokedStatement("{'content': 'APPROVED   shortcut'}", REVOKED)).toBe(true);
    expect(
      carriesRevokedStatement('Chunk 3: admin access MFA may be waived, when the requester is in a hurry!', REVOKED),
    ).toBe(true);
  });

  it('needs the whole sentence, on word boundaries', () => {
    expect(carriesRevokedStatement('MFA may be waived.', REVOKED)).toBe(false);
    expect(carriesRevokedStatement('Unapproved shortcut.', REVOKED)).toBe(false);
    expect(carriesRevokedStatement('Approved shortcuts.', REVOKED)).toBe(false);
    expect(carriesRevokedStatement('Admin access always requires MFA.', REVOKED)).toBe(false);
  });

  it('splits the revoked text at sentence ends and line breaks, and never matches on an empty sentence', () => {
    expect(carriesRevokedStatement('second line', 'first line\nsecond line')).toBe(true);
    expect(carriesRevokedStatement('anything at all', '...')).toBe(false);
    expect(carriesRevokedStatement('', REVOKED)).toBe(false);
  });

  it('reads composed and decomposed accents alike', () => {
    expect(carriesRevokedStatement('Caf\u00e9 access is open.', 'Cafe\u0301 access is open.')).toBe(true);
  });
});
