import { createCipheriv, randomBytes } from 'node:crypto';
import { bindings, fileKeyProvider, KeyConfigurationError, startCore } from '@paywire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyKeys } from '../../apps/core/src/security/card-vault.ts';
import { client, saleBody } from '../support/http.ts';
import { type Stack, startStack } from '../support/stack.ts';

/**
 * A database from before data keys (v1 values, fingerprints under the static key's derivation) meets a core
 * with envelope encryption: with its old key it imports that key and the fingerprint key, so every value
 * opens and every fingerprint still matches; without it, core refuses to start rather than lose them.
 */
describe('upgrading a database sealed with v1', () => {
  let stack: Stack;
  let secret: Buffer;
  const number = '4007702835532454';

  beforeAll(async () => {
    stack = await startStack();
    secret = stack.coreOptions.cardEncryptionKey as Buffer;
    const sale = await client(stack).post(
      '/transactions',
      saleBody({ creditCard: { ...saleBody().creditCard, cardNumber: number } }),
    );
    expect(sale.status, sale.text).toBe(200);
    // as 0021 left it: the number sealed v1, no data keys
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', legacyKeys(secret).encryption, iv);
    const body = Buffer.concat([cipher.update(number, 'utf8'), cipher.final()]);
    await stack.db.query('update stored_card set sealed_number = $1', [
      `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`,
    ]);
    await stack.db.query('delete from key_reencryption');
    await stack.db.query('delete from data_key');
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('refuses to start without the old key, saying how to import it', async () => {
    const refused = startCore({
      ...stack.coreOptions,
      role: 'api',
      cardEncryptionKey: undefined,
      keyProvider: fileKeyProvider(randomBytes(32)),
    });
    await expect(refused).rejects.toThrow(KeyConfigurationError);
    await expect(refused).rejects.toThrow(/from before data keys \(v1\).*CARD_ENCRYPTION_KEY/);
    const { rows } = await stack.db.query('select count(*)::integer as count from data_key');
    expect(rows[0]?.count).toBe(0); // nothing half made
  });

  it('imports the old key and fingerprint key: v1 values open, fingerprints still match', async () => {
    const core = await startCore({ ...stack.coreOptions, role: 'api' });
    try {
      const { rows } = await stack.db.query<{
        merchant_id: number;
        fingerprint: string;
        sealed_number: string;
      }>('select merchant_id, fingerprint, sealed_number from stored_card');
      const row = rows[0];
      if (!row) throw new Error('no stored card');
      expect(
        core.services.vault.open(row.sealed_number, bindings.card(row.merchant_id, row.fingerprint)),
      ).toBe(number);
      expect(core.services.vault.fingerprint(number)).toBe(row.fingerprint);
      const keys = await stack.db.query('select purpose, legacy from data_key order by id');
      expect(keys.rows).toEqual([
        { purpose: 'fingerprint', legacy: true }, // imported: its fingerprints stay bare, as v1 stored them
        { purpose: 'encryption', legacy: true },
        { purpose: 'encryption', legacy: false },
      ]);
    } finally {
      await core.close();
    }
  });
});
