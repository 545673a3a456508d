import { z } from 'zod';

/** ISO 8601 durations of fixed length (weeks, days, hours, minutes, seconds): months and years vary. */
const durationPattern = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

export function durationSeconds(duration: string): number | undefined {
  const match = durationPattern.exec(duration);
  if (!match || duration === 'P' || duration.endsWith('T')) return undefined;
  const [weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as number[];
  return (((weeks ?? 0) * 7 + (days ?? 0)) * 24 + (hours ?? 0)) * 3600 + (minutes ?? 0) * 60 + (seconds ?? 0);
}

/** The duration stays text: core turns it into seconds with durationSeconds, so input and output agree. */
export const advanceClockInput = z.object({
  advanceBy: z
    .string()
    .trim()
    .refine((duration) => {
      const seconds = durationSeconds(duration);
      return seconds !== undefined && seconds <= 10 * 365 * 86400;
    }, 'must be an ISO 8601 duration such as P9D or PT2H (at most 10 years)'),
});

export type AdvanceClockInput = z.input<typeof advanceClockInput>;

export interface SandboxClock {
  now: string;
  offsetSeconds: number;
}
