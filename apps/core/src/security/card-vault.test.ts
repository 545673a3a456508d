import { createCipheriv, createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fileKeyProvider } from '../keys/provider.ts';
import { bindings, createCardVault, ephemeralRing, type KeyRing, legacyKeys } from './card-vault.ts';

const card = bindings.card(7, 'fingerprint-of-the-card');

describe('card vault', () => {
  const vault = createCardVault(ephemeralRing());

  it('seals so the number is not readable, names its key, and opens it back', () => {
    const sealed = vault.seal('4263982640269299', card);
    expect(sealed).not.toContain('4263982640269299');
    expect(sealed).not.toContain('9299');
    expect(sealed).toMatch(new RegExp(`^v2:${vault.currentKeyId()}:`));
    expect(vault.open(sealed, card)).toBe('4263982640269299');
  });

  it('uses a fresh IV each time', () => {
    expect(vault.seal('4263982640269299', card)).not.toBe(vault.seal('4263982640269299', card));
  });

  it('binds a value to its merchant, table and row: moved elsewhere, it does not open', () => {
    const sealed = vault.seal('4263982640269299', card);
    expect(() => vault.open(sealed, bindings.card(8, 'fingerprint-of-the-card'))).toThrow();
    expect(() => vault.open(sealed, bindings.card(7, 'another-card'))).toThrow();
    expect(() => vault.open(sealed, bindings.mandate(7, 'fingerprint-of-the-card'))).toThrow();
  });

  it('refuses a tampered value, a value under another key, and any tag shorter than 16 bytes', () => {
    const sealed = vault.seal('4263982640269299', card);
    const [, id, payload] = sealed.split(':');
    const raw = Buffer.from(payload ?? '', 'base64');
    const flipped = Buffer.from(raw);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1;
    expect(() => vault.open(`v2:${id}:${flipped.toString('base64')}`, card)).toThrow();
    expect(() => createCardVault(ephemeralRing()).open(sealed, card)).toThrow();
    // iv | 4-byte tag, no body: GCM alone would take a 4-byte tag
    expect(() => vault.open(`v2:${id}:${raw.subarray(0, 16).toString('base64')}`, card)).toThrow('too short');
  });

  it('opens v1 values under the legacy key, and refuses a v1 value with a short tag', () => {
    const secret = randomBytes(32);
    const legacy = createCardVault(ephemeralRing(secret));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', legacyKeys(secret).encryption, iv);
    const body = Buffer.concat([cipher.update('4263982640269299', 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    expect(legacy.open(`v1:${Buffer.concat([iv, tag, body]).toString('base64')}`, card)).toBe(
      '4263982640269299',
    );
    const short = Buffer.concat([iv, tag.subarray(0, 4)]);
    expect(() => legacy.open(`v1:${short.toString('base64')}`, card)).toThrow();
    expect(() => vault.open(`v1:${Buffer.concat([iv, tag, body]).toString('base64')}`, card)).toThrow(
      'legacy',
    );
  });

  it('seals under a new key only from its activation, opens under both, and keeps fingerprints', () => {
    let now = 1_000;
    const ring = ephemeralRing();
    const rotating = createCardVault(ring, () => now);
    const before = rotating.seal('4263982640269299', card);
    const fingerprint = rotating.fingerprint('4263982640269299');
    const next: KeyRing = {
      keys: [
        ...ring.keys,
        {
          id: 9,
          purpose: 'encryption',
          legacy: false,
          activatesAt: new Date(2_000),
          key: createSecretKey(randomBytes(32)),
        },
      ],
    };
    rotating.replace(next);
    expect(rotating.currentKeyId()).not.toBe(9);
    now = 2_000;
    expect(rotating.currentKeyId()).toBe(9);
    const after = rotating.seal('4263982640269299', card);
    expect(after).toMatch(/^v2:9:/);
    expect(rotating.open(before, card)).toBe('4263982640269299');
    expect(rotating.open(after, card)).toBe('4263982640269299');
    expect(rotating.fingerprint('4263982640269299')).toBe(fingerprint);
  });

  it('fingerprints the same way every time, and as v1 did when imported from its secret', () => {
    const secret = randomBytes(32);
    const imported = createCardVault(ephemeralRing(secret));
    expect(vault.fingerprint('4263982640269299')).toBe(vault.fingerprint('4263982640269299'));
    expect(vault.fingerprint('4263982640269299')).not.toBe(vault.fingerprint('5425233430109903'));
    expect(imported.fingerprint('4263982640269299')).toBe(
      createCardVault(ephemeralRing(secret)).fingerprint('4263982640269299'),
    );
  });
});

describe('file key provider', () => {
  it('wraps bound to a context, and another secret cannot unwrap', async () => {
    const secret = randomBytes(32);
    const provider = fileKeyProvider(secret);
    const dek = randomBytes(32);
    const wrapped = await provider.wrap(dek, 'paywire data key 1 encryption');
    expect(await provider.unwrap(wrapped, 'paywire data key 1 encryption')).toEqual(dek);
    await expect(provider.unwrap(wrapped, 'paywire data key 2 encryption')).rejects.toThrow();
    await expect(
      fileKeyProvider(randomBytes(32)).unwrap(wrapped, 'paywire data key 1 encryption'),
    ).rejects.toThrow();
    expect(fileKeyProvider(secret).kekId).toBe(provider.kekId);
    expect(fileKeyProvider(randomBytes(32)).kekId).not.toBe(provider.kekId);
    expect(() => fileKeyProvider(randomBytes(16))).toThrow('32 bytes');
  });
});
