import { createCipheriv, randomBytes } from 'node:crypto';
import {
  bindings,
  coreRegistry,
  createPkcs11Kek,
  destroyPkcs11Kek,
  type Pkcs11Settings,
} from '@paywire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkcs11KeyProvider } from '../../apps/core/src/keys/pkcs11.ts';
import { legacyKeys } from '../../apps/core/src/security/card-vault.ts';
import { as, client, saleBody } from '../support/http.ts';
import { runNode } from '../support/node-process.ts';
import { newSoftHsmToken, type SoftHsmToken, softHsmAvailable } from '../support/softhsm.ts';
import { operatorCliEnv, type Stack, startStack, type TestMerchant } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Envelope encryption proven on a real SoftHSM2 token, real PostgreSQL and real HTTP: a core started with the
 * pkcs11 provider sells, `npm run keys -- rotate` runs under concurrent sales with none failing, the workers
 * re-encrypt every value (v1 ones included) and retire the old keys; a ciphertext moved to another merchant's
 * row does not open; a wrong PIN, a wrong key and a removed key refuse to start, saying so.
 */
const hsm = softHsmAvailable();

function luhnCard(): string {
  const digits = `4${Array.from({ length: 14 }, () => Math.floor(Math.random() * 10)).join('')}`;
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 0) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return `${digits}${(10 - (sum % 10)) % 10}`;
}

const cardSale = (number = luhnCard()) =>
  saleBody({
    creditCard: { cardNumber: number, securityCode: '123', expirationMonth: '02', expirationYear: '2031' },
  });

describe.skipIf(!hsm)('keys in an HSM (SoftHSM2 through PKCS#11)', () => {
  let token: SoftHsmToken;
  let settings: Pkcs11Settings;
  let stack: Stack;
  let api: ReturnType<typeof client>;
  let keyEnv: Record<string, string>;
  const legacySecret = randomBytes(32);

  beforeAll(async () => {
    token = newSoftHsmToken();
    settings = {
      module: token.module,
      tokenLabel: token.tokenLabel,
      pin: token.pin,
      keyLabel: 'paywire-kek',
    };
    await createPkcs11Kek(settings);
    stack = await startStack({
      keyProvider: await pkcs11KeyProvider(settings),
      keyRefreshMs: 300,
      keyRetireAfterSeconds: 2,
    });
    // the legacy secret of the stack (imported at its first start): v1 values below are sealed under it
    stack.coreOptions.cardEncryptionKey?.copy(legacySecret);
    api = client(stack);
    keyEnv = {
      DATABASE_URL: stack.databaseUrl,
      KEY_PROVIDER: 'pkcs11',
      PKCS11_MODULE: token.module,
      PKCS11_TOKEN_LABEL: token.tokenLabel,
      PKCS11_PIN: token.pin,
      PKCS11_KEY_LABEL: settings.keyLabel,
      SOFTHSM2_CONF: token.conf,
      CARD_ENCRYPTION_KEY: legacySecret.toString('base64'),
    };
  });

  afterAll(async () => {
    await stack?.close();
  });

  const keys = async () =>
    (
      await stack.db.query<{ id: number; legacy: boolean; retired: boolean; kek_id: string }>(
        `select id, legacy, retired_at is not null as retired, kek_id from data_key where purpose = 'encryption'
         order by id`,
      )
    ).rows;

  let shopper: number;
  let number: string;

  it('starts with the key-encryption key in the HSM and seals a sale’s card under a named data key', async () => {
    const wrapped = await keys();
    expect(wrapped.every((key) => key.kek_id === `pkcs11:${token.tokenLabel}/paywire-kek`)).toBe(true);
    number = luhnCard();
    const sale = await api.post('/transactions', cardSale(number));
    expect(sale.status, sale.text).toBe(200);
    shopper = sale.body.vaultedShopperId;
    const { rows } = await stack.db.query('select sealed_number from stored_card where shopper_id = $1', [
      shopper,
    ]);
    const current = wrapped.find((key) => !key.legacy);
    expect(rows[0]?.sealed_number).toMatch(new RegExp(`^v2:${current?.id}:`));
    expect(rows[0]?.sealed_number).not.toContain(number.slice(-4));
  });

  it('still opens a v1 value (the format before key ids) under the imported legacy key', async () => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', legacyKeys(legacySecret).encryption, iv);
    const body = Buffer.concat([cipher.update(number, 'utf8'), cipher.final()]);
    const v1 = `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    await stack.db.query('update stored_card set sealed_number = $1 where shopper_id = $2', [v1, shopper]);
    const charge = await api.post('/transactions', {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 12,
      currency: 'USD',
      vaultedShopperId: shopper,
    });
    expect(charge.status, charge.text).toBe(200);
    expect(charge.body.creditCard.cardLastFourDigits).toBe(number.slice(-4));
  });

  it('rotates under concurrent sales with no failed request, re-encrypts everything and retires the old keys', async () => {
    const before = await keys();
    let stop = false;
    const failures: string[] = [];
    let sales = 0;
    const shoppers: number[] = [shopper];
    const seller = async () => {
      while (!stop) {
        const known = shoppers[Math.floor(Math.random() * shoppers.length)];
        const reply =
          sales % 2 === 0
            ? await api.post('/transactions', cardSale())
            : await api.post('/transactions', {
                cardTransactionType: 'AUTH_CAPTURE',
                amount: 3,
                currency: 'USD',
                vaultedShopperId: known,
              });
        sales++;
        if (reply.status !== 200) failures.push(`${reply.status} ${reply.text}`);
        else if (reply.body.vaultedShopperId && shoppers.length < 50)
          shoppers.push(Number(reply.body.vaultedShopperId));
      }
    };
    const load = Array.from({ length: 3 }, seller);
    await waitFor('sales under way', () => sales >= 6, 30_000);

    const rotated = await runNode(
      ['infra/keys.ts', 'rotate', '--activate-after', '2'],
      await operatorCliEnv(stack),
    );
    expect(rotated.code, rotated.output).toBe(0);
    const newest = Math.max(...(await keys()).map((key) => key.id));
    expect(before.some((key) => key.id === newest)).toBe(false);

    await waitFor(
      'every key but the new one retired',
      async () => (await keys()).every((key) => key.retired === (key.id !== newest)),
      90_000,
      250,
    );
    const salesAtRetirement = sales;
    await waitFor('sales after the retirement', () => sales >= salesAtRetirement + 6, 30_000);
    stop = true;
    await Promise.all(load);
    expect(failures).toEqual([]);
    expect(sales).toBeGreaterThan(12);

    const { rows } = await stack.db.query<{ sealed: string }>(
      `select sealed_number as sealed from stored_card
       union all select sealed_card from payment_fields_token where sealed_card is not null`,
    );
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) expect(row.sealed).toMatch(new RegExp(`^v2:${newest}:`));
    const retired = await stack.db.query('select wrapped from data_key where retired_at is not null');
    expect(retired.rows.length).toBe(before.length);
    for (const row of retired.rows) expect(row.wrapped).toBeNull();

    // observable as metrics: the values re-encrypted per table, the keys retired
    const metrics = await coreRegistry.metrics();
    const reencrypted = [...metrics.matchAll(/^paywire_key_rows_reencrypted_total\{table="(\w+)"\} (\d+)/gm)];
    expect(Number(reencrypted.find((line) => line[1] === 'stored_card')?.[2])).toBeGreaterThan(0);
    expect(metrics).toMatch(new RegExp(`^paywire_key_retirements_total ${before.length}$`, 'm'));

    const status = await runNode(['infra/keys.ts', 'status', '--json'], await operatorCliEnv(stack));
    expect(status.code, status.output).toBe(0);
    const shown = JSON.parse(status.output.trim().split('\n').pop() ?? '{}');
    expect(shown.keys.find((key: { id: number }) => key.id === newest)).toMatchObject({ state: 'sealing' });
    // one progress row per sealed table: cards, tokens, IBANs, processor credentials, wallet keys, IPN secrets,
    // vendors' bank accounts
    expect(shown.rotations.filter((rotation: { keyId: number }) => rotation.keyId === newest).length).toBe(7);

    // the card sealed as v1 before the rotation is still charged, now under the new key
    const charge = await api.post('/transactions', {
      cardTransactionType: 'AUTH_CAPTURE',
      amount: 4,
      currency: 'USD',
      vaultedShopperId: shopper,
    });
    expect(charge.status, charge.text).toBe(200);
  }, 180_000);

  it('does not open a ciphertext moved to another merchant’s row', async () => {
    const other: TestMerchant = await stack.newMerchant();
    const sale = await api.post('/transactions', cardSale(), as(other));
    expect(sale.status, sale.text).toBe(200);
    const theirs = sale.body.vaultedShopperId;
    const read = async (id: number) =>
      (
        await stack.db.query<{ merchant_id: number; fingerprint: string; sealed_number: string }>(
          'select merchant_id, fingerprint, sealed_number from stored_card where shopper_id = $1',
          [id],
        )
      ).rows[0];
    const mine = await read(shopper);
    const target = await read(theirs);
    if (!mine || !target) throw new Error('no stored cards');
    const vault = stack.core.services.vault;
    expect(vault.open(mine.sealed_number, bindings.card(mine.merchant_id, mine.fingerprint))).toBe(number);
    expect(() =>
      vault.open(mine.sealed_number, bindings.card(target.merchant_id, target.fingerprint)),
    ).toThrow();

    await stack.db.query('update stored_card set sealed_number = $1 where shopper_id = $2', [
      mine.sealed_number,
      theirs,
    ]);
    const charge = await api.post(
      '/transactions',
      { cardTransactionType: 'AUTH_CAPTURE', amount: 5, currency: 'USD', vaultedShopperId: theirs },
      as(other),
    );
    expect(charge.status).not.toBe(200);
    expect(charge.text).not.toContain(number);
    expect(charge.text).not.toContain(number.slice(-4));
    await stack.db.query('update stored_card set sealed_number = $1 where shopper_id = $2', [
      target.sealed_number,
      theirs,
    ]);
  });

  const startChild = (env: Record<string, string>) =>
    runNode(['apps/core/src/main.ts'], { ...keyEnv, CORE_PORT: '0', ...env });

  it('refuses to start with a wrong HSM PIN, saying so', async () => {
    const started = await startChild({ PKCS11_PIN: '999999' });
    expect(started.code).toBe(1);
    expect(started.output).toContain('refuses to start');
    expect(started.output).toContain('refused the PIN');
  }, 90_000);

  it('refuses to start with another key-encryption key (a wrong file key, another HSM key)', async () => {
    const file = await startChild({
      KEY_PROVIDER: 'file',
      CARD_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    });
    expect(file.code).toBe(1);
    expect(file.output).toMatch(/refuses to start: data key \d+ was wrapped by key-encryption key pkcs11:/);
    await createPkcs11Kek({ ...settings, keyLabel: 'another-kek' });
    const other = await startChild({ PKCS11_KEY_LABEL: 'another-kek' });
    expect(other.code).toBe(1);
    expect(other.output).toContain('but the configured one is pkcs11:');
  }, 90_000);

  it('refuses to start once the key-encryption key is removed from the HSM, saying so', async () => {
    await destroyPkcs11Kek(settings);
    const started = await startChild({});
    expect(started.code).toBe(1);
    expect(started.output).toContain(`no key labelled "paywire-kek" on the HSM token "${token.tokenLabel}"`);
  }, 90_000);
});
