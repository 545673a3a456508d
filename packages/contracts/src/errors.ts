import type { FraudEvents } from './fraud.ts';

/**
 * The closed catalogue of errors the public interface can answer with. Codes and names taken from the
 * original gateway keep merchants' client libraries working; the 10xxx/200xx codes marked "ours" fill
 * the interface's gaps (see docs/conformance.md, Errors).
 */
export const errorCatalogue = {
  INVALID_TRANSACTION_TYPE: { code: 7, status: 400 },
  INVALID_HTTP_METHOD: { code: 85, status: 405 },
  INVALID_API_VERSION: { code: 10000, status: 400 },
  VALIDATION_GENERAL_FAILURE: { code: 10001, status: 400 },
  UNAUTHORIZED: { code: 10401, status: 401 },
  FORBIDDEN: { code: 10403, status: 403 }, // ours: an internal caller acting outside its credential's scope
  RESOURCE_NOT_FOUND: { code: 10404, status: 404 }, // ours: unknown route
  REQUEST_TIMEOUT: { code: 10408, status: 408 }, // ours: the request did not arrive in time
  REQUEST_ENTITY_TOO_LARGE: { code: 10413, status: 413 }, // ours
  UNSUPPORTED_MEDIA_TYPE: { code: 10415, status: 415 }, // ours
  EXPECTATION_FAILED: { code: 10417, status: 417 }, // ours: an Expect other than 100-continue
  TOO_MANY_REQUESTS: { code: 10429, status: 429 }, // ours: failed logins limited (Retry-After says when)
  REQUEST_HEADER_FIELDS_TOO_LARGE: { code: 10431, status: 431 }, // ours
  INTERNAL_ERROR: { code: 10500, status: 500 }, // ours
  SERVICE_UNAVAILABLE: { code: 10503, status: 503 }, // ours: core unreachable or not ready (Retry-After says when)
  DO_NOT_HONOR: { code: 14002, status: 400 },
  INSUFFICIENT_FUNDS: { code: 14002, status: 400 },
  EXPIRED_CARD: { code: 14002, status: 400 },
  CVV_ERROR: { code: 14002, status: 400 },
  CARD_LOST_OR_STOLEN: { code: 14002, status: 400 },
  CALL_ISSUER: { code: 14002, status: 400 },
  AUTHORIZATION_EXPIRED: { code: 14002, status: 400 },
  AUTHORIZATION_NOT_FOUND: { code: 14002, status: 400 },
  AUTHORIZATION_AMOUNT_ALREADY_REVERSED: { code: 14002, status: 400 },
  AMOUNT_EXCEEDED_MAXIMUM_ALLOWED_FRACTION_DIGITS: { code: 14021, status: 400 },
  FRAUD_DETECTED: { code: 15011, status: 400 }, // a sale the merchant's fraud rules declined (docs/fraud.md)
  TRANSACTION_NOT_FOUND: { code: 20001, status: 404 },
  SHOPPER_NOT_FOUND: { code: 20002, status: 404 },
  NOTIFICATION_DELIVERY_NOT_FOUND: { code: 20030, status: 404 }, // ours: the delivery log
  TRANSACTION_ALREADY_CAPTURED: { code: 20010, status: 400 },
  REFUND_AMOUNT_EXCEEDS_BALANCE: { code: 20011, status: 400 },
  INVALID_PAYMENT_DETAILS: { code: 20012, status: 400 },
  // Pending refunds (docs/conformance.md, Pending refunds): the reference names no error, names and codes ours
  NO_PENDING_REFUND: { code: 20090, status: 400 }, // the transaction has no refund waiting to be done
  REFUND_NOT_CANCELLABLE: { code: 20091, status: 400 }, // its processor cannot withdraw it, or is being asked it
  // Apple Pay onboarding and sessions (docs/wallets.md): the reference names no error, names and codes ours
  WALLET_ONBOARDING_NOT_FOUND: { code: 20092, status: 404 }, // no domains registered yet, or another merchant's id
  APPLE_PAY_SESSION_FAILED: { code: 20093, status: 400 }, // Apple refused the session, or none can be asked for
  NO_PROCESSOR_ACCOUNT: { code: 20061, status: 400 }, // ours: none of the merchant's processor accounts takes the payment
  // Recurring billing: names from the original's SubscriptionAndBillingPlanErrors, codes ours
  SUBSCRIPTION_NOT_FOUND: { code: 20040, status: 404 },
  PLAN_NOT_FOUND: { code: 20041, status: 404 },
  SUBSCRIPTION_CHARGE_NOT_FOUND: { code: 20042, status: 404 },
  NON_UPDATABLE_FIELD: { code: 20043, status: 400 },
  CANNOT_ADD_ELEMENT: { code: 20044, status: 400 },
  CANNOT_DELETE_ELEMENT: { code: 20045, status: 400 },
  MISMATCH_SUBSCRIPTION_CURRENCY: { code: 20046, status: 400 },
  CANNOT_UPDATE_CANCELED_SUBSCRIPTION: { code: 20047, status: 400 },
  INVALID_STATUS: { code: 20048, status: 400 },
  SWITCH_PLAN_ERROR: { code: 20049, status: 400 },
  CANNOT_CREATE_INACTIVE_PLAN: { code: 20050, status: 400 },
  MAX_PAGE_SIZE_EXCEEDED: { code: 20051, status: 400 },
  NEGATIVE_PAGE_SIZE: { code: 20052, status: 400 },
  INVALID_INPUT: { code: 21001, status: 400 }, // the original's Reporting API: bad report code, dates or period
  // Marketplaces: the original's Marketplace and Refund errors (docs/marketplace.md, Split payments and Refunds)
  VENDOR_NOT_FOUND: { code: 20054, status: 404 }, // ours: GET or PUT of a vendor that is not the merchant's
  UNAUTHORIZED_USE_OF_VENDOR: { code: 20050, status: 400 },
  INACTIVE_VENDOR: { code: 20052, status: 400 },
  DECLINED_VENDOR: { code: 20053, status: 400 },
  DUPLICATE_VENDOR: { code: 14035, status: 400 },
  VENDOR_LIMIT_MAX: { code: 14036, status: 400 },
  VENDOR_COMMISSION_EXCEEDED: { code: 14037, status: 400 },
  REFUND_VENDOR_AMOUNT_NOT_SUPPORTED: { code: 14030, status: 400 },
  REFUND_NEGATIVE_VENDOR_AMOUNT: { code: 14031, status: 400 },
  REFUND_MAX_VENDOR_AMOUNT_FAILURE: { code: 14032, status: 400 }, // code inferred: the reference names it without one
  REFUND_MAX_MERCHANT_AMOUNT_FAILURE: { code: 14033, status: 400 }, // code inferred, as above
  REFUND_INVALID_VENDOR_REFUND_AMOUNT: { code: 14043, status: 400 },
  REFUND_VENDOR_ERROR: { code: 14044, status: 400 },
  REFUND_INVALID_VENDOR: { code: 14045, status: 400 },
  VENDOR_ALREADY_FULLY_REFUNDED: { code: 14046, status: 400 }, // code inferred, as above
  REFUND_NEGATIVE_MERCHANT_AMOUNT: { code: 14047, status: 400 },
  PROCESSOR_ACCOUNT_NOT_FOUND: { code: 20060, status: 404 }, // ours: an admin call names an unknown account
  CHARGEBACK_NOT_FOUND: { code: 20070, status: 404 }, // ours: an unknown chargeback or another merchant's
  // The account updater (docs/account-updater.md): codes ours, the original names neither
  ACCOUNT_UPDATE_BATCH_NOT_FOUND: { code: 20080, status: 404 },
  ACCOUNT_UPDATE_FILE_NOT_AVAILABLE: { code: 20081, status: 400 }, // the batch is not answered yet
  SAME_IDEMPOTENCY_KEY_WAS_ALREADY_IN_USE_WITH_PREVIOUS_DIFFERENT_REQUEST: { code: 60101, status: 422 },
  REQUEST_WITH_SAME_IDEMPOTENCY_KEY_ALREADY_IN_PROGRESS: { code: 60102, status: 409 },
  IDEMPOTENCY_KEY_MAX_LENGTH_LIMIT_EXCEEDED: { code: 60103, status: 400 },
  INVALID_IDEMPOTENCY_KEY: { code: 60104, status: 400 },
} as const satisfies Record<string, { code: number; status: number }>;

export type ErrorName = keyof typeof errorCatalogue;

export interface InvalidProperty {
  name: string;
  messageValue?: string;
}

/** One entry of the public error body: `{"message":[ErrorMessage, ...]}`. */
export interface ErrorMessage {
  errorName: ErrorName;
  code: number;
  description: string;
  invalidProperty?: InvalidProperty;
  /** A FRAUD_DETECTED error's rules that fired, as the original reports them. */
  fraudEvents?: FraudEvents;
}

export interface ErrorBody {
  message: ErrorMessage[];
}

export function isErrorName(name: unknown): name is ErrorName {
  return typeof name === 'string' && Object.hasOwn(errorCatalogue, name);
}

/**
 * An error the domain means to show the client. Its description is written for the merchant and must
 * never carry card data; anything else thrown is rendered as INTERNAL_ERROR without its message.
 */
export class DomainError extends Error {
  readonly errorName: ErrorName;
  readonly invalidProperty: InvalidProperty | undefined;

  constructor(errorName: ErrorName, description: string, invalidProperty?: InvalidProperty) {
    super(description);
    this.name = 'DomainError';
    this.errorName = errorName;
    this.invalidProperty = invalidProperty;
  }

  get status(): number {
    return errorCatalogue[this.errorName].status;
  }

  toMessage(): ErrorMessage {
    return errorMessage(this.errorName, this.message, this.invalidProperty);
  }
}

export function errorMessage(
  errorName: ErrorName,
  description: string,
  invalidProperty?: InvalidProperty,
): ErrorMessage {
  const message: ErrorMessage = { errorName, code: errorCatalogue[errorName].code, description };
  if (invalidProperty) message.invalidProperty = invalidProperty;
  return message;
}

/** The HTTP status for a body of several messages: the first message decides. */
export function statusOf(body: ErrorBody): number {
  const first = body.message[0];
  return first ? errorCatalogue[first.errorName].status : 500;
}
