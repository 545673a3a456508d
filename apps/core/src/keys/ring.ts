import { createSecretKey, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeParameterized } from '../db/wire.ts';
import { type AuditOrigin, recordAudit } from '../security/audit/trail.ts';
import {
  createCardVault,
  type DataKey,
  type KeyRing,
  legacyKeys,
  type RefreshableVault,
} from '../security/card-vault.ts';
import { checkValue, KeyConfigurationError, type KeyProvider } from './provider.ts';
import { holdsV1Data, insertKey, liveKeys, lockKeys, nextKeyId } from './queries.ts';

interface KeyRow {
  id: number;
  purpose: 'encryption' | 'fingerprint';
  legacy: boolean;
  kek_id: string;
  wrapped: Buffer;
  check_value: string;
  activates_at: Date;
}

/** What a wrapping is bound to: the key's id and purpose, so a wrapped key moved to another row fails. */
const wrapContext = (id: number, purpose: string) => `paywire data key ${id} ${purpose}`;

async function addKey(
  em: EntityManager,
  provider: KeyProvider,
  purpose: 'encryption' | 'fingerprint',
  material: Buffer,
  options: { legacy?: boolean; activateAfterSeconds?: number } = {},
): Promise<number> {
  const [next] = await executeParameterized<{ id: number }>(em, nextKeyId, []);
  if (!next) throw new Error('no key id');
  const wrapped = await provider.wrap(material, wrapContext(next.id, purpose));
  await executeParameterized(em, insertKey, [
    next.id,
    purpose,
    options.legacy ?? false,
    provider.kekId,
    wrapped,
    checkValue(material),
    options.activateAfterSeconds ?? 0,
  ]);
  return next.id;
}

/**
 * Unwraps the stored keys this process does not hold yet, and checks each against its check value. Any
 * failure is a refusal to start that names the key and the likely cause, never a failure per request later.
 */
async function unwrapKeys(
  provider: KeyProvider,
  rows: KeyRow[],
  known: Map<number, DataKey>,
): Promise<DataKey[]> {
  const keys: DataKey[] = [];
  for (const row of rows) {
    const held = known.get(row.id);
    if (held) {
      keys.push(held);
      continue;
    }
    if (row.kek_id !== provider.kekId)
      throw new KeyConfigurationError(
        `data key ${row.id} was wrapped by key-encryption key ${row.kek_id}, but the configured one is ${provider.kekId}: ` +
          (provider.kind === 'file'
            ? 'CARD_ENCRYPTION_KEY is not the key this database was set up with'
            : 'KEY_PROVIDER or PKCS11_* name another key'),
      );
    let material: Buffer;
    try {
      material = await provider.unwrap(row.wrapped, wrapContext(row.id, row.purpose));
    } catch (error) {
      throw new KeyConfigurationError(
        `data key ${row.id} cannot be unwrapped by ${provider.kekId} (${(error as Error).message}): the key-encryption key is not the one that wrapped it`,
      );
    }
    if (checkValue(material) !== row.check_value)
      throw new KeyConfigurationError(`data key ${row.id} does not match its key check value`);
    keys.push({
      id: row.id,
      purpose: row.purpose,
      legacy: row.legacy,
      activatesAt: new Date(row.activates_at),
      key: createSecretKey(material),
    });
    material.fill(0);
  }
  return keys;
}

/**
 * The key ring at start: creates what a database lacks (under one lock, so concurrent cores agree) - the
 * fingerprint key and the legacy key imported from the static secret `v1` used (its fingerprints and
 * idempotency records keep matching), else a fresh fingerprint key; a first DEK - then unwraps and checks
 * every key. Throws KeyConfigurationError when the provider's key is not the one the keys were wrapped by.
 */
export async function openKeyRing(
  em: EntityManager,
  provider: KeyProvider,
  legacySecret: Buffer | undefined,
): Promise<KeyRing> {
  const rows = await em.transactional(async (tx) => {
    await executeParameterized(tx, lockKeys, []);
    let rows = await executeParameterized<KeyRow>(tx, liveKeys, []);
    const everyKey = await executeParameterized<{ purpose: string; legacy: boolean }>(
      tx,
      'select purpose, legacy from data_key',
      [],
    );
    const legacy = legacySecret ? legacyKeys(legacySecret) : undefined;
    let added = false;
    if (!everyKey.some((key) => key.purpose === 'fingerprint')) {
      // A fresh fingerprint key over v1 data would lose every duplicate and every idempotent replay.
      const [v1] = await executeParameterized<{ holds: boolean }>(tx, holdsV1Data, []);
      if (!legacy && v1?.holds)
        throw new KeyConfigurationError(
          'this database holds card data from before data keys (v1): start once with CARD_ENCRYPTION_KEY set to its key, so that key and its fingerprint key are imported',
        );
      // the imported key's fingerprints are bare HMACs, as v1 stored them (0036)
      await addKey(tx, provider, 'fingerprint', legacy?.fingerprint ?? randomBytes(32), {
        legacy: legacy !== undefined,
      });
      added = true;
    }
    if (legacy && !everyKey.some((key) => key.legacy && key.purpose === 'encryption')) {
      await addKey(tx, provider, 'encryption', legacy.encryption, { legacy: true });
      added = true;
    }
    if (!rows.some((row) => row.purpose === 'encryption' && !row.legacy)) {
      await addKey(tx, provider, 'encryption', randomBytes(32));
      added = true;
    }
    if (added) rows = await executeParameterized<KeyRow>(tx, liveKeys, []);
    return rows;
  });
  return { keys: await unwrapKeys(provider, rows, new Map()) };
}

/** The ring as the database has it now: keys added since are unwrapped (once), retired ones dropped. */
export async function refreshKeyRing(
  em: EntityManager,
  provider: KeyProvider,
  ring: KeyRing,
): Promise<KeyRing> {
  const rows = await executeParameterized<KeyRow>(em, liveKeys, []);
  const known = new Map(ring.keys.map((key) => [key.id, key]));
  if (rows.length === ring.keys.length && rows.every((row) => known.has(row.id))) return ring;
  return { keys: await unwrapKeys(provider, rows, known) };
}

/**
 * A rotation: a new DEK (or fingerprint key), current from `activateAfterSeconds` on (longer than every core's
 * refresh period, so each can open values, or match fingerprints, under it before any writes with it).
 * Re-encryption or re-fingerprinting (reencrypt.ts) follows.
 */
export async function addDataKey(
  em: EntityManager,
  provider: KeyProvider,
  activateAfterSeconds: number,
  origin: AuditOrigin,
  purpose: 'encryption' | 'fingerprint' = 'encryption',
): Promise<number> {
  return em.transactional(async (tx) => {
    await executeParameterized(tx, lockKeys, []);
    const id = await addKey(tx, provider, purpose, randomBytes(32), { activateAfterSeconds });
    // A rotation is the operator's, of no merchant: it joins the trail's own chain (docs/security-audit.md).
    await recordAudit(tx, origin, {
      merchantId: null,
      action: 'key.rotate',
      object: `data-key:${id}`,
      outcome: 'success',
    });
    return id;
  });
}

/** A vault over the database's keys, for tools that open or seal outside core (CLIs, tests). */
export async function openVault(
  em: EntityManager,
  provider: KeyProvider,
  legacySecret: Buffer | undefined,
): Promise<RefreshableVault> {
  return createCardVault(await openKeyRing(em, provider, legacySecret));
}
