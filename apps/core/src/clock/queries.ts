/**
 * Every hand-written statement of clock, named for its role; parameters as `$n`, never values in the text.
 */

/** Moves the merchant's ($2) clock forward by $1 seconds. */
export const advanceOffset =
  'update merchant set clock_offset_seconds = clock_offset_seconds + $1 where id = $2';
