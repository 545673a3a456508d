// No imports: the merchant console's bundle imports this module alone (@paywire/contracts/chargeback-statuses).

/**
 * A dispute's statuses, the original's (docs/chargebacks.md, Statuses): opened, the issuer waiting on the
 * merchant, the merchant's representment filed, and the two outcomes.
 */
export const chargebackStatuses = [
  'NEW',
  'PENDING_MERCHANT_RESPONSE',
  'MERCHANT_RESPONDED',
  'COMPLETED_WON',
  'COMPLETED_LOST',
] as const;
export type ChargebackStatus = (typeof chargebackStatuses)[number];

/** The statuses each status may move to; a status moves to itself never (nothing would change). */
export const chargebackTransitions: Readonly<Record<ChargebackStatus, readonly ChargebackStatus[]>> = {
  NEW: ['PENDING_MERCHANT_RESPONSE', 'MERCHANT_RESPONDED', 'COMPLETED_WON', 'COMPLETED_LOST'],
  PENDING_MERCHANT_RESPONSE: ['MERCHANT_RESPONDED', 'COMPLETED_WON', 'COMPLETED_LOST'],
  MERCHANT_RESPONDED: ['PENDING_MERCHANT_RESPONSE', 'COMPLETED_WON', 'COMPLETED_LOST'],
  // A won first round is not final (a second chargeback, a pre-arbitration the issuer wins), nor is a
  // lost one (a pre-arbitration the issuer loses).
  COMPLETED_WON: ['COMPLETED_LOST'],
  COMPLETED_LOST: ['COMPLETED_WON'],
};

/** Statuses in which the merchant may still file evidence. */
export const representableStatuses: readonly ChargebackStatus[] = [
  'NEW',
  'PENDING_MERCHANT_RESPONSE',
  'MERCHANT_RESPONDED',
];
