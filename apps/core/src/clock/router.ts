import { advanceClockInput, durationSeconds } from '@paywire/contracts';
import { merchantProcedure, router } from '../trpc.ts';
import { advanceClock, getClock } from './service.ts';

export const clockRouter = router({
  get: merchantProcedure.query(({ ctx }) => getClock(ctx)),
  advance: merchantProcedure
    .input(advanceClockInput)
    .mutation(({ ctx, input }) => advanceClock(ctx, durationSeconds(input.advanceBy) ?? 0)),
});
