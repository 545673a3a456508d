import { z } from 'zod';

/** `keys.rotate` (admin): a new data key, or with `purpose: fingerprint` a new fingerprint key (docs/keys.md). */
export const rotateKeyInput = z.object({
  purpose: z.enum(['encryption', 'fingerprint']).default('encryption'),
  /** When the new key becomes current; unset: 3 x core's key refresh period, so every core has learnt it. */
  activateAfterSeconds: z.number().int().min(0).max(86_400).optional(),
});
export type RotateKeyInput = z.input<typeof rotateKeyInput>;
