import { rotateKeyInput } from '@paywire/contracts';
import { adminProcedure, router } from '../trpc.ts';
import { requestReencryption } from './reencrypt.ts';
import { addDataKey } from './ring.ts';
import { keyStatus } from './status.ts';

/** The data keys, for admin callers (`npm run keys`): their status, and rotations, audited as the caller's. */
export const keysRouter = router({
  status: adminProcedure.query(({ ctx }) => keyStatus(ctx.em)),
  rotate: adminProcedure.input(rotateKeyInput).mutation(async ({ ctx, input }) => {
    const activateAfterSeconds = input.activateAfterSeconds ?? ctx.keys.activateAfterSeconds;
    const keyId = await addDataKey(
      ctx.em,
      ctx.keys.provider,
      activateAfterSeconds,
      ctx.origin,
      input.purpose,
    );
    // the workers re-encrypt (or re-fingerprint) once the key is current
    await requestReencryption(ctx.jobs, activateAfterSeconds);
    return { keyId, purpose: input.purpose, activateAfterSeconds };
  }),
});
