import type { BankOutcome } from './entities.ts';

/**
 * The bank that collects SEPA debits, behind one interface so a real one can plug in: a debit is
 * submitted when it is opened, and the bank's answer becomes visible at the collection date.
 */
export interface SepaBank {
  submit(debit: { iban: string; amountMinor: number; currency: 'EUR' }): BankOutcome;
}

/** docs/conformance.md, SEPA direct debit: one IBAN fails, one succeeds and is then returned (refunded), every other succeeds. */
const scenarios: Readonly<Record<string, BankOutcome>> = {
  DE62370400440532013001: 'FAIL',
  DE35370400440532013002: 'SUCCESS_THEN_RETURN',
};

export const sandboxSepaBank: SepaBank = {
  submit: ({ iban }) => scenarios[iban] ?? 'SUCCESS',
};

export interface SepaSettings {
  bank: SepaBank;
  /** Sandbox: seconds from submission to the bank's answer (SEPA_SANDBOX_SETTLE_SECONDS, default 120). */
  sandboxSettleSeconds: number;
}

/** Live debits are collected 5 TARGET business days after submission (see docs/conformance.md, SEPA direct debit). */
export const liveCollectionBusinessDays = 5;
