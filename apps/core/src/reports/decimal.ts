import { minorToDecimal } from '@paywire/contracts';

/** Minor units (a number, or PostgreSQL's text of a bigint or numeric) as signed decimal text of the currency. */
export function signedDecimal(minor: number | string, currency: string): string {
  const value = Number(minor);
  return `${value < 0 ? '-' : ''}${minorToDecimal(Math.abs(value), currency)}`;
}
