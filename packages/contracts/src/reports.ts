import { z } from 'zod';

export const settlementReportInput = z.object({
  /** The day, in UTC by the merchant's clock (sandbox offset included). */
  date: z.iso.date(),
});

export type SettlementReportInput = z.input<typeof settlementReportInput>;

/** How many, and their sum as exact decimal text. */
export interface SettlementTotals {
  count: number;
  amount: string;
}

/** One currency's day. `net` is captured sales and settled debits less card and SEPA refunds. */
export interface CurrencySettlement {
  currency: string;
  cardSales: SettlementTotals;
  cardRefunds: SettlementTotals;
  sepaSettled: SettlementTotals;
  sepaFailed: SettlementTotals;
  sepaRefunds: SettlementTotals;
  net: string;
}

export interface SettlementReport {
  date: string;
  currencies: CurrencySettlement[];
}
