import {
  chargebackIdInput,
  chargebackListQuery,
  createSandboxChargebackInput,
  moveSandboxChargebackInput,
  uploadEvidenceInput,
} from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import {
  createSandboxChargeback,
  getChargeback,
  listChargebacks,
  moveSandboxChargeback,
  uploadEvidence,
} from './service.ts';

export const chargebacksRouter = router({
  get: merchantProcedure
    .input(chargebackIdInput)
    .query(({ ctx, input }) => getChargeback(ctx, input.chargebackId)),
  list: merchantProcedure.input(chargebackListQuery).query(({ ctx, input }) => listChargebacks(ctx, input)),
  uploadEvidence: merchantProcedure
    .input(uploadEvidenceInput)
    .mutation(({ ctx, input }) => uploadEvidence(ctx, input)),
  sandboxCreate: merchantProcedure
    .input(createSandboxChargebackInput)
    .mutation(({ ctx, input }) => createSandboxChargeback(ctx, input)),
  sandboxMove: merchantProcedure
    .input(moveSandboxChargebackInput)
    .mutation(({ ctx, input }) => moveSandboxChargeback(ctx, input)),
});
