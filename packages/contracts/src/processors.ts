import { z } from 'zod';
import { cardBrands } from './cards.ts';
import { currencyInput, text } from './primitives.ts';

/**
 * A merchant's processor accounts and the rules that route its card payments to them (README, Processor
 * accounts and routing). Managed by admin callers and the operator CLI only.
 */
export const connectorNames = ['sandbox', 'adyen'] as const;
export type ConnectorName = (typeof connectorNames)[number];
export const processorEnvironments = ['test', 'live'] as const;
export type ProcessorEnvironment = (typeof processorEnvironments)[number];

const merchantIdInput = z.number().int().positive().max(999_999_999);

const accountName = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,63}$/,
    'must be 1-64 of a-z, 0-9, ".", "_", "-", starting with a letter or digit',
  );

/**
 * What Paywire needs to call Adyen for the account and to check its notifications. Sealed at rest and never
 * answered by any procedure; error messages never echo it (validation.ts: `credentials` is sensitive).
 */
export const adyenCredentialsInput = z.object({
  apiKey: text(1000),
  /** The notification HMAC key, hex as Adyen's Customer Area shows it. */
  hmacKey: z.string().regex(/^(?:[0-9A-Fa-f]{2}){32,256}$/, 'must be hex, 64 or more characters'),
  notificationUsername: text(200),
  notificationPassword: text(200),
  /** Live only: the prefix of the account's live Checkout endpoint. */
  liveUrlPrefix: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,100}$/, 'must be the live endpoint prefix (letters, digits, "-")')
    .optional(),
  /** Test only: another Checkout base URL (a fake on 127.0.0.1 in tests). */
  endpoint: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
});
export type AdyenCredentials = z.output<typeof adyenCredentialsInput>;

export const addProcessorAccountInput = z
  .object({
    merchantId: merchantIdInput,
    name: accountName,
    connector: z.enum(connectorNames),
    environment: z.enum(processorEnvironments),
    /** Adyen's merchant account code; for the sandbox any label. */
    merchantAccount: text(100),
    /** ISO 4217 codes the account accepts; empty: any. */
    currencies: z
      .array(currencyInput)
      .max(200)
      .default([])
      .transform((codes) => [...new Set(codes)]),
    credentials: adyenCredentialsInput.optional(),
    /** The account payments fall back to; unset: yes for the merchant's first default-less account. */
    default: z.boolean().optional(),
  })
  .superRefine((input, ctx) => {
    const problem = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (input.connector === 'sandbox') {
      if (input.environment === 'live')
        problem(
          ['environment'],
          'the sandbox connector refuses live credentials: sandbox accounts are test only',
        );
      if (input.credentials) problem(['credentials'], 'the sandbox connector takes no credentials');
      return;
    }
    if (!input.credentials)
      return problem(['credentials'], `is required for the ${input.connector} connector`);
    if (input.environment === 'live' && !input.credentials.liveUrlPrefix)
      problem(['credentials', 'liveUrlPrefix'], 'is required for a live account');
    if (input.environment === 'test' && input.credentials.liveUrlPrefix)
      problem(['credentials', 'liveUrlPrefix'], 'is for live accounts only');
    if (input.environment === 'live' && input.credentials.endpoint)
      problem(['credentials', 'endpoint'], 'is for test accounts only');
  });
export type AddProcessorAccountInput = z.input<typeof addProcessorAccountInput>;

export const listProcessorAccountsInput = z.object({ merchantId: merchantIdInput });
export const disableProcessorAccountInput = z.object({ merchantId: merchantIdInput, name: accountName });

const amountMinor = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** A routing rule: its conditions (all optional; none: every payment) and the account it sends payments to. */
export const processorRouteRule = z
  .object({
    account: accountName,
    currency: currencyInput.optional(),
    cardBrand: z.enum(cardBrands).optional(),
    /** An inclusive band of the amount in the currency's minor units: needs the currency. */
    minAmountMinor: amountMinor.optional(),
    maxAmountMinor: amountMinor.optional(),
    /** The share of the payments matching the other conditions this rule takes (routing.ts). */
    percent: z.number().int().min(1).max(100).optional(),
  })
  .superRefine((rule, ctx) => {
    for (const bound of ['minAmountMinor', 'maxAmountMinor'] as const)
      if (rule[bound] !== undefined && rule.currency === undefined)
        ctx.addIssue({
          code: 'custom',
          path: [bound],
          message: 'needs a currency: minor units are per currency',
        });
    if (
      rule.minAmountMinor !== undefined &&
      rule.maxAmountMinor !== undefined &&
      rule.minAmountMinor > rule.maxAmountMinor
    )
      ctx.addIssue({ code: 'custom', path: ['maxAmountMinor'], message: 'must not be below minAmountMinor' });
  });
export type ProcessorRouteRule = z.output<typeof processorRouteRule>;

/** The merchant's whole ordered rule list, replacing the previous one; empty: no rules. */
export const routeProcessorsInput = z.object({
  merchantId: merchantIdInput,
  rules: z.array(processorRouteRule).max(100),
});
export type RouteProcessorsInput = z.input<typeof routeProcessorsInput>;

/** An account as procedures answer it: never its credentials, at most the api key's last four characters. */
export interface ProcessorAccountView {
  id: number;
  name: string;
  connector: ConnectorName;
  environment: ProcessorEnvironment;
  merchantAccount: string;
  currencies: string[];
  default: boolean;
  enabled: boolean;
  hasCredentials: boolean;
  apiKeyLastFour: string | null;
  createdAt: string;
  disabledAt: string | null;
}

export interface ProcessorSetup {
  accounts: ProcessorAccountView[];
  /** In order: the first matching rule decides. */
  routes: ProcessorRouteRule[];
}
