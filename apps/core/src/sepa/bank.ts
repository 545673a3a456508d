import type { AchSettings } from '../ach/bank.ts';
import type { BankOutcome } from './entities.ts';

/** A debit as the bank is asked to collect it; `reference` is its end-to-end id (the debit's id). */
export interface PresentedDebit {
  reference: string;
  iban: string;
  amountMinor: number;
  currency: 'EUR';
}

/**
 * The bank that collects SEPA debits, behind one interface so a real one can plug in. It is Paywire's
 * processor for SEPA and is asked only from the payment pipeline's call phase (sepa/settlement.ts): when a
 * debit falls due, settlement presents it and records the answer. Presenting one reference again (core died
 * between the answer and its recording) must answer the same and collect once, as a bank keys a collection
 * by its end-to-end id.
 */
export interface SepaBank {
  collect(debits: PresentedDebit[]): Promise<Map<string, BankOutcome>>;
}

/** docs/conformance.md, SEPA direct debit: one IBAN fails, one succeeds and is then returned (refunded), every other succeeds. */
const scenarios: Readonly<Record<string, BankOutcome>> = {
  DE62370400440532013001: 'FAIL',
  DE35370400440532013002: 'SUCCESS_THEN_RETURN',
};

export const sandboxSepaBank: SepaBank = {
  collect: async (debits) =>
    new Map(debits.map(({ reference, iban }) => [reference, scenarios[iban] ?? 'SUCCESS'])),
};

/** The banks debits are collected by, and when; ACH debits (docs/ach.md) settle as SEPA debits do. */
export interface SepaSettings {
  bank: SepaBank;
  ach: AchSettings;
  /** Sandbox: seconds from submission to the bank's answer (SEPA_SANDBOX_SETTLE_SECONDS, default 120). */
  sandboxSettleSeconds: number;
}

/**
 * Live debits are collected 5 business days after submission (see docs/conformance.md, SEPA direct debit), of
 * TARGET2's calendar for SEPA and the Federal Reserve's for ACH.
 */
export const liveCollectionBusinessDays = 5;

declare module '../context.ts' {
  interface CoreServices {
    sepa: SepaSettings;
  }
}
