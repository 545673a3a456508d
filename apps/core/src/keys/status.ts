import type { EntityManager } from '@mikro-orm/postgresql';
import { executeParameterized } from '../db/wire.ts';
import { allKeys, rotationProgress } from './queries.ts';
import { fingerprintReferencesPerKey, referencesPerKey } from './reencrypt.ts';

export interface KeyView {
  id: number;
  purpose: 'encryption' | 'fingerprint';
  /**
   * sealing: the current DEK; pending: current from activatesAt; opening: still opens values; retired;
   * fingerprinting: the current fingerprint key; matching: an older fingerprint key, still matched.
   */
  state: 'sealing' | 'pending' | 'opening' | 'retired' | 'fingerprinting' | 'matching';
  legacy: boolean;
  kekId: string;
  checkValue: string;
  activatesAt: string;
  retiredAt: string | null;
  /** Sealed values under this key (encryption keys), or fingerprints under it (fingerprint keys). */
  references: number;
}

export interface RotationView {
  keyId: number;
  table: string;
  rowsReencrypted: number;
  finishedAt: string | null;
  updatedAt: string;
}

/** What `npm run keys -- status` shows: every key with what refers to it, and each rotation's progress. */
export async function keyStatus(em: EntityManager): Promise<{ keys: KeyView[]; rotations: RotationView[] }> {
  const rows = await executeParameterized<{
    id: number;
    purpose: 'encryption' | 'fingerprint';
    legacy: boolean;
    kek_id: string;
    check_value: string;
    activates_at: Date | string;
    retired_at: Date | string | null;
  }>(em, allKeys, []);
  const references = await referencesPerKey(em);
  const fingerprints = await fingerprintReferencesPerKey(em);
  const time = (value: Date | string) => new Date(value);
  const iso = (value: Date | string | null) => (value === null ? null : time(value).toISOString());
  const now = Date.now();
  // the key of a purpose new values get: the newest active one (a legacy DEK never seals)
  const currentOf = (purpose: KeyView['purpose']) =>
    rows
      .filter(
        (row) =>
          row.purpose === purpose &&
          !(purpose === 'encryption' && row.legacy) &&
          !row.retired_at &&
          time(row.activates_at).getTime() <= now,
      )
      .sort((a, b) => time(b.activates_at).getTime() - time(a.activates_at).getTime() || b.id - a.id)[0];
  const current = { encryption: currentOf('encryption'), fingerprint: currentOf('fingerprint') };
  const keys = rows.map(
    (row): KeyView => ({
      id: row.id,
      purpose: row.purpose,
      state: row.retired_at
        ? 'retired'
        : row.id === current[row.purpose]?.id
          ? row.purpose === 'fingerprint'
            ? 'fingerprinting'
            : 'sealing'
          : time(row.activates_at).getTime() > now
            ? 'pending'
            : row.purpose === 'fingerprint'
              ? 'matching'
              : 'opening',
      legacy: row.legacy,
      kekId: row.kek_id,
      checkValue: row.check_value,
      activatesAt: time(row.activates_at).toISOString(),
      retiredAt: iso(row.retired_at),
      references:
        row.purpose === 'fingerprint'
          ? (fingerprints.get(row.legacy ? 'legacy' : String(row.id)) ?? 0)
          : (references.get(row.legacy ? 'v1' : String(row.id)) ?? 0),
    }),
  );
  const progress = await executeParameterized<{
    key_id: number;
    table_name: string;
    rows_reencrypted: number;
    finished_at: Date | string | null;
    updated_at: Date | string;
  }>(em, rotationProgress, []);
  return {
    keys,
    rotations: progress.map((row) => ({
      keyId: row.key_id,
      table: row.table_name,
      rowsReencrypted: row.rows_reencrypted,
      finishedAt: iso(row.finished_at),
      updatedAt: time(row.updated_at).toISOString(),
    })),
  };
}
