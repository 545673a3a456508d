import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCardVault } from './card-vault.ts';

describe('card vault', () => {
  const vault = createCardVault(randomBytes(32));

  it('seals so the number is not readable and opens it back', () => {
    const sealed = vault.seal('4263982640269299');
    expect(sealed).not.toContain('4263982640269299');
    expect(sealed).not.toContain('9299');
    expect(vault.open(sealed)).toBe('4263982640269299');
  });

  it('uses a fresh IV each time', () => {
    expect(vault.seal('4263982640269299')).not.toBe(vault.seal('4263982640269299'));
  });

  it('refuses a tampered value and a value sealed under another key', () => {
    const sealed = vault.seal('4263982640269299');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => vault.open(`v1:${raw.toString('base64')}`)).toThrow();
    expect(() => createCardVault(randomBytes(32)).open(sealed)).toThrow();
  });

  it('fingerprints a card the same way every time, and differently under another key', () => {
    expect(vault.fingerprint('4263982640269299')).toBe(vault.fingerprint('4263982640269299'));
    expect(vault.fingerprint('4263982640269299')).not.toBe(vault.fingerprint('5425233430109903'));
    expect(createCardVault(randomBytes(32)).fingerprint('4263982640269299')).not.toBe(
      vault.fingerprint('4263982640269299'),
    );
  });

  it('wants a 32-byte key', () => {
    expect(() => createCardVault(randomBytes(16))).toThrow('32 bytes');
  });
});
