import { describe, expect, it } from 'vitest';
import { signWrite, verifyWrite, writerKey } from './provenance.js';

describe('signed writes', () => {
  const agent = writerKey('agent');
  const attacker = writerKey('attacker');
  const signed = signWrite(agent, 'alice', 'My rent is due on the 1st.', { source: 'user', verified: true });

  it('derives the same key from the same name and verifies under the trusted key only', () => {
    expect(writerKey('agent').publicKeyPem).toBe(agent.publicKeyPem);
    expect(verifyWrite([agent.publicKeyPem], 'alice', 'My rent is due on the 1st.', signed)).toBe(true);
    expect(verifyWrite([attacker.publicKeyPem], 'alice', 'My rent is due on the 1st.', signed)).toBe(false);
    const laundered = signWrite(attacker, 'alice', 'My rent is due on the 1st.', { source: 'user' });
    expect(verifyWrite([agent.publicKeyPem], 'alice', 'My rent is due on the 1st.', laundered)).toBe(false);
  });

  it('binds the text, the namespace and every label', () => {
    expect(verifyWrite([agent.publicKeyPem], 'alice', 'My rent is due on the 2nd.', signed)).toBe(false);
    expect(verifyWrite([agent.publicKeyPem], 'bob', 'My rent is due on the 1st.', signed)).toBe(false);
    expect(
      verifyWrite([agent.publicKeyPem], 'alice', 'My rent is due on the 1st.', { ...signed, source: 'external' }),
    ).toBe(false);
    expect(
      verifyWrite([agent.publicKeyPem], 'alice', 'My rent is due on the 1st.', { ...signed, verified: false }),
    ).toBe(false);
  });

  it('fails closed on a missing or malformed signature and a bad key', () => {
    expect(verifyWrite([agent.publicKeyPem], 'alice', 'x', { source: 'user' })).toBe(false);
    expect(verifyWrite([agent.publicKeyPem], 'alice', 'x', { source: 'user', signature: 'not base64!' })).toBe(false);
    expect(
      verifyWrite(
        ['-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'],
        'alice',
        'My rent is due on the 1st.',
        signed,
      ),
    ).toBe(false);
  });
});
