import { z } from 'zod';
import type { AccountUpdateBatch } from './account-updater.ts';
import { ecpAccountTypes } from './ach.ts';
import {
  type AuditEvent,
  type AuditEventPage,
  auditActions,
  auditActorKinds,
  auditOutcomes,
} from './audit.ts';
import { cardBrands } from './cards.ts';
import {
  type CatalogProduct,
  type CatalogSku,
  oneTimePayment,
  productStatuses,
  skuStatuses,
  skuTypes,
} from './catalog.ts';
import { type Chargeback, type ChargebackList, chargebackStatuses } from './chargebacks.ts';
import type { SandboxClock } from './clock.ts';
import { type ErrorBody, type ErrorName, errorCatalogue } from './errors.ts';
import { type CustomParameter, customParamTypes, titleAlignments } from './extended.ts';
import type { FraudSettings } from './fraud.ts';
import {
  deliveryStates,
  ipnEvents,
  type NotificationConfig,
  type NotificationDelivery,
  type NotificationDeliveryPage,
  type SendFlag,
  sendFlags,
} from './ipn.ts';
import {
  payoutFrequencies,
  payoutTypes,
  type Vendor,
  type VendorPage,
  vendorAccountStatuses,
} from './marketplace.ts';
import type { BatchOrder, BatchShopper, Order } from './orders.ts';
import { type ConsolePermission, type ConsoleUser, consolePermissions } from './partners.ts';
import {
  type ChargePage,
  chargeFrequencies,
  type Plan,
  type PlanPage,
  planStatuses,
  type SubscriptionBody,
  type SubscriptionChargeBody,
  type SubscriptionPage,
  type SwitchChargeAmount,
  subscriptionStatuses,
} from './recurring.ts';
import { type AltTransaction, type SepaTranslations, sepaLanguages } from './sepa.ts';
import {
  billingContactFields,
  type ShopperDeletion,
  shopperFieldNames,
  type VaultedShopper,
} from './shoppers.ts';
import type { BoundToken } from './tokens.ts';
import {
  authenticationResults,
  level3DataInput,
  transactionFraudInfoInput,
  transactionMetaDataInput,
} from './transaction-details.ts';
import type { CardTransaction, Refund } from './transactions.ts';
import { walletTypes } from './wallets.ts';

/**
 * The public response bodies as zod schemas, for the published API description (OpenAPI). Core answers
 * with the TypeScript types of the other contract modules; each schema here is checked at compile time to
 * be exactly its type (same properties, same optionality, same value types), so a field added to a
 * response type fails the typecheck here until the description has it too.
 */

type Normalized<T> = T extends object ? { [K in keyof T]-?: Normalized<Exclude<T[K], undefined>> } : T;
type Same<A, B> =
  (<T>() => T extends Normalized<A> ? 1 : 2) extends <T>() => T extends Normalized<B> ? 1 : 2
    ? [A] extends [B]
      ? [B] extends [A]
        ? true
        : false
      : false
    : false;

/** `describes<T>()(schema)` compiles only when the schema's output is T (else: "Expected 2 arguments"). */
const describes =
  <T>() =>
  <S extends z.ZodType>(schema: S, ..._notExactly: Same<z.output<S>, T> extends true ? [] : [never]): S =>
    schema;

/** An object of optional strings: the contact and address blocks responses show only when filled. */
function optionalStrings<K extends string>(keys: readonly K[]) {
  return z.object(
    Object.fromEntries(keys.map((key) => [key, z.string().optional()])) as Record<
      K,
      z.ZodOptional<z.ZodString>
    >,
  );
}

const cardSubType = z.enum(['CREDIT', 'DEBIT']);
const cardResponse = z.object({
  cardLastFourDigits: z.string(),
  cardType: z.enum(cardBrands),
  cardSubType,
  cardCategory: z.string(),
  expirationMonth: z.string(),
  expirationYear: z.string(),
});
const billingContact = optionalStrings(billingContactFields);
const amount = z
  .number()
  .meta({ description: 'In the currency, e.g. 10.5; XML writes its decimals (10.50).' });

const fraudResultInfo = z.object({ deviceDataCollector: z.enum(['Y', 'N']) });

/** The merchant's fraud rules (docs/fraud.md): a limit that is off is absent. */
export const fraudSettingsBody = describes<FraudSettings>()(
  z.object({
    cardHourlyLimit: z.number().optional(),
    ipAddressHourlyLimit: z.number().optional(),
    amountLimits: z.array(
      z.object({ currency: z.string(), minAmount: z.number().optional(), maxAmount: z.number().optional() }),
    ),
    countryMismatchDecline: z.boolean(),
  }),
);
const vendorInfoBody = z.object({
  vendorId: z.number(),
  commissionPercent: z.number().optional(),
  commissionAmount: z.number().optional(),
});
/** A split payment's vendors, in the form its request sent them. */
const splitBody = {
  vendorInfo: vendorInfoBody.optional().meta({ description: 'The split, when the request sent vendorInfo' }),
  vendorsInfo: z
    .object({ vendorInfo: z.array(vendorInfoBody) })
    .optional()
    .meta({ description: 'The split, when the request sent vendorsInfo' }),
};

export const cardTransactionBody = describes<CardTransaction>()(
  z.object({
    cardTransactionType: z.enum(['AUTH_CAPTURE', 'AUTH_ONLY', 'CAPTURE', 'AUTH_REVERSAL']),
    transactionId: z.string(),
    merchantTransactionId: z.string().optional(),
    recurringTransaction: z.literal('ECOMMERCE'),
    softDescriptor: z.string().optional(),
    amount,
    currency: z.string(),
    cardHolderInfo: optionalStrings(['firstName', 'lastName', 'zip', 'email', 'country']).optional(),
    vaultedShopperId: z.number(),
    creditCard: cardResponse.partial({ expirationMonth: true, expirationYear: true }),
    wallet: z
      .object({
        walletType: z.enum(walletTypes),
        billingContactInfo: billingContact.optional(),
        tokenizedCard: z.object({
          cardLastFourDigits: z.string(),
          cardType: z.enum(cardBrands),
          cardSubType,
          dpanLastFourDigits: z.string().optional(),
          dpanExpirationMonth: z.string().optional(),
          dpanExpirationYear: z.string().optional(),
        }),
      })
      .optional(),
    processingInfo: z.object({
      processingStatus: z.literal('success').meta({ description: 'XML writes it upper-case: SUCCESS.' }),
      cvvResponseCode: z.string(),
      authorizationCode: z.string(),
      avsResponseCodeZip: z.string(),
      avsResponseCodeAddress: z.string(),
      avsResponseCodeName: z.string(),
      networkTransactionId: z.string(),
    }),
    threeDSecure: z.object({ authenticationResult: z.enum(authenticationResults) }).optional(),
    transactionMetaData: transactionMetaDataInput.optional(),
    level3Data: level3DataInput.optional(),
    transactionFraudInfo: transactionFraudInfoInput.optional(),
    fraudResultInfo: fraudResultInfo
      .optional()
      .meta({ description: "Present when the merchant's fraud rules screened the sale" }),
    ...splitBody,
  }),
);

export const refundBody = describes<Refund>()(
  z.object({
    refundTransactionId: z.string(),
    transactionId: z.string(),
    amount,
    taxAmount: z.number().optional(),
    currency: z.string(),
    date: z.string().meta({ description: "The merchant's day of the refund, MM/dd/yyyy" }),
    reason: z.string().optional(),
    cancelSubscriptions: z.boolean().optional(),
    transactionMetaData: transactionMetaDataInput.optional(),
    refundStatus: z
      .enum(['SUCCESS', 'PENDING'])
      .meta({ description: 'PENDING: the processor has received the refund and not done it yet' }),
    vendorsRefundInfo: z
      .object({ vendorRefundInfo: z.array(z.object({ vendorId: z.number(), vendorAmount: amount })) })
      .optional()
      .meta({ description: "Each vendor's part of the refund, when the transaction was split" }),
  }),
);

const ibanDigits = { ibanFirstFour: z.string(), ibanLastFour: z.string() };
const ecpAccount = z.object({
  accountType: z.enum(ecpAccountTypes),
  publicAccountNumber: z.string().meta({ description: 'The account number masked to its last four digits' }),
  publicRoutingNumber: z.string().meta({ description: 'The routing number masked to its last four digits' }),
});
const mandate = { ...ibanDigits, mandateId: z.string(), mandateDate: z.string() };

export const vaultedShopperBody = describes<VaultedShopper>()(
  optionalStrings(shopperFieldNames).extend({
    vaultedShopperId: z.number(),
    paymentSources: z.object({
      creditCardInfo: z.array(
        z.object({ billingContactInfo: billingContact.optional(), creditCard: cardResponse }),
      ),
      ecpInfo: z.object({ ecp: ecpAccount }).optional(),
      sepaDirectDebitInfo: z.array(z.object({ sepaDirectDebit: z.object(mandate) })).optional(),
    }),
    lastPaymentInfo: z
      .object({
        paymentMethod: z.literal('CC'),
        creditCard: cardResponse.pick({ cardLastFourDigits: true, cardType: true }),
      })
      .optional(),
  }),
);

export const shopperDeletionBody = describes<ShopperDeletion>()(z.object({ description: z.string() }));

export const boundTokenBody = describes<BoundToken>()(
  z.object({ ccType: z.string(), last4Digits: z.string(), issuingCountry: z.string() }),
);

export const sandboxClockBody = describes<SandboxClock>()(
  z.object({ now: z.string().meta({ description: 'ISO 8601 instant' }), offsetSeconds: z.number() }),
);

export const notificationConfigBody = describes<NotificationConfig>()(
  z.object({
    ipnDestinations: z.array(
      z.object({
        ipnUrl: z.string(),
        ...(Object.fromEntries(sendFlags.map((flag) => [flag, z.boolean()])) as Record<
          SendFlag,
          z.ZodBoolean
        >),
      }),
    ),
    ensureNotificationReceipt: z.boolean(),
    receiveAffiliateNotifications: z.boolean(),
  }),
);

export const notificationDeliveryBody = describes<NotificationDelivery>()(
  z.object({
    deliveryId: z.number(),
    event: z.enum(ipnEvents),
    referenceNumber: z.string().nullable(),
    destination: z.string(),
    state: z.enum(deliveryStates),
    attempts: z.number(),
    maxAttempts: z.number(),
    lastStatus: z.number().nullable(),
    lastError: z.string().nullable(),
    nextTryAt: z.string().nullable(),
    createdAt: z.string(),
    deliveredAt: z.string().nullable(),
    requestId: z.string().nullable(),
  }),
);

export const notificationDeliveryPageBody = describes<NotificationDeliveryPage>()(
  z.object({ lastPage: z.boolean(), notificationDeliveries: z.array(notificationDeliveryBody) }),
);

export const auditEventBody = describes<AuditEvent>()(
  z.object({
    seq: z.number(),
    action: z.enum(auditActions),
    object: z.string().nullable(),
    outcome: z.enum(auditOutcomes),
    actorKind: z.enum(auditActorKinds),
    actor: z.string(),
    clientAddress: z.string().nullable(),
    requestId: z.string().nullable(),
    occurredAt: z.string(),
    hash: z.string(),
  }),
);

export const auditEventPageBody = describes<AuditEventPage>()(
  z.object({ lastPage: z.boolean(), auditEvents: z.array(auditEventBody) }),
);

const sepaStatus = z.enum(['PENDING', 'SUCCESS', 'FAIL', 'REFUNDED']);
const sepaDebitDetails = z.object({
  ...mandate,
  preNotificationText: z.string(),
  preNotificationTranslationRef: z.string().meta({ description: 'URL of the texts in every language' }),
});

export const altTransactionBody = describes<AltTransaction>()(
  z.object({
    transactionId: z.string(),
    merchantTransactionId: z.string().optional(),
    amount,
    currency: z.enum(['EUR', 'USD']),
    payerInfo: z.object({ firstName: z.string(), lastName: z.string() }),
    vaultedShopperId: z.number(),
    authorizedByShopper: z.literal(true),
    transactionMetaData: transactionMetaDataInput.optional(),
    ecpTransaction: ecpAccount.optional(),
    sepaDirectDebitTransaction: sepaDebitDetails.optional(),
    processingInfo: z.object({
      processingStatus: sepaStatus,
      processingErrors: z
        .array(
          z.object({
            processingErrorCode: z.string(),
            processingErrorName: z.string(),
            processingErrorDescription: z.string(),
          }),
        )
        .optional()
        .meta({ description: 'A failed or returned ECP debit: its NACHA return code and reason' }),
    }),
    ...splitBody,
  }),
);

export const sepaTranslationsBody = describes<SepaTranslations>()(
  z.object({
    translations: z.array(z.object({ language: z.enum(sepaLanguages), translationText: z.string() })),
  }),
);

export const productBody = describes<CatalogProduct>()(
  z.object({
    productId: z.number(),
    productStatus: z.enum(productStatuses),
    productName: z.string(),
    productShortDescription: z.string(),
    productLongDescription: z.string().optional(),
    productInfoUrl: z.string().optional(),
    productImage: z.string().optional(),
    productMerchantDescriptor: z.string().optional(),
    productSupportEmail: z.string().optional(),
    productSkus: z.array(z.string()),
  }),
);

export const skuBody = describes<CatalogSku>()(
  z.object({
    skuId: z.number(),
    skuName: z.string(),
    contractName: z.string(),
    productId: z.number(),
    skuStatus: z.enum(skuStatuses),
    skuType: z.enum(skuTypes),
    pricingSettings: z.object({
      chargePolicyType: z.literal(oneTimePayment),
      chargePolicy: z.object({
        oneTimeCharge: z.object({
          catalogPrices: z.array(z.object({ basePrice: z.boolean(), currency: z.string(), amount })),
        }),
      }),
    }),
    skuImage: z.string().optional(),
    skuQuantityPolicy: z.object({ allowQuantityChange: z.boolean(), minimumQuantity: z.number() }),
    collectShippingAddress: z.boolean(),
  }),
);

export const consoleUserBody = describes<Omit<ConsoleUser, 'merchantId'>>()(
  z.object({
    userId: z.number(),
    username: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    ...(Object.fromEntries(consolePermissions.map((name) => [name, z.boolean()])) as Record<
      ConsolePermission,
      z.ZodBoolean
    >),
  }),
);

const lengths = { minimumLength: z.number().optional(), maximumLength: z.number().optional() };

export const customParameterBody = describes<CustomParameter>()(
  z.object({
    customParamId: z.number(),
    customParamTitle: z.string(),
    active: z.boolean(),
    mandatory: z.boolean(),
    customParamSettings: z.object({
      customParamType: z.enum(customParamTypes),
      shortTextType: z.object({ ...lengths, regexValidation: z.string().optional() }).optional(),
      longTextType: z.object(lengths).optional(),
      fixedSelectionType: z.object({ dropDownValues: z.array(z.string()) }).optional(),
      merchantValueType: z.object(lengths).optional(),
      visualSettings: z.object({ titleAlignment: z.enum(titleAlignments).optional() }).optional(),
    }),
  }),
);

const contactKeys = ['title', 'firstName', 'lastName', 'email', 'companyName', 'address1', 'city'] as const;
const shopperContact = optionalStrings([...contactKeys, 'zip', 'country', 'phone', 'fax']);
const sepaBillingContact = optionalStrings(['firstName', 'lastName', 'address1', 'city', 'zip', 'country']);

export const batchShopperBody = describes<BatchShopper>()(
  z.object({
    shopperInfo: z.object({
      shopperId: z.number(),
      shopperContactInfo: shopperContact,
      shippingContactInfo: optionalStrings(['firstName', 'lastName', 'address1', 'city', 'zip', 'country']),
      invoiceContactsInfo: z.array(shopperContact.extend({ default: z.boolean() })),
      paymentInfo: z.object({
        creditCardsInfo: z.array(
          z.object({
            billingContactInfo: z.record(z.string(), z.string()).optional(),
            creditCard: cardResponse,
          }),
        ),
        ecpsInfo: z.array(z.object({ billingContactInfo: sepaBillingContact.optional(), ecp: ecpAccount })),
        sepaDirectDebitsInfo: z.array(
          z.object({
            billingContactInfo: sepaBillingContact.optional(),
            sepaDirectDebit: z.object(ibanDigits),
          }),
        ),
        balance: z.object({ currency: z.string(), value: amount }),
      }),
      storeId: z.string().optional(),
      shopperCurrency: z.string(),
      locale: z.string(),
    }),
  }),
);

/** The card an Extended order charged. */
const orderedCard = z.object({ cardLastFourDigits: z.string(), cardType: z.enum(cardBrands) });

/** What every financial transaction of an order's invoice shows, whatever paid it. */
const financialTransactionFacts = {
  dateDue: z.string(),
  dateCreated: z.string(),
  amount,
  tax: z.number(),
  taxRate: z.number(),
  currency: z.string(),
  softDescriptor: z.string(),
  targetBalance: z.literal('PLIMUS_ACCOUNT'),
  invoiceContactInfo: shopperContact,
  skus: z.array(z.object({ skuId: z.number() })),
};

export const orderBody = describes<Order>()(
  z.object({
    orderId: z.number(),
    sellerOrderId: z.string().optional(),
    softDescriptor: z.string().optional(),
    orderingShopper: z.object({ shopperId: z.number(), creditCard: orderedCard.optional() }),
    cart: z.object({
      chargedCurrency: z.string(),
      cartItem: z.array(
        z.object({
          sku: z.object({ skuId: z.number(), skuName: z.string() }),
          quantity: z.number(),
          skuParameter: z.array(z.object({ paramName: z.string(), paramValue: z.string() })).optional(),
          itemSubTotal: z.number(),
        }),
      ),
      tax: z.number(),
      taxRate: z.number(),
      totalCartCost: z.number(),
    }),
    postSaleInfo: z.object({
      invoices: z.array(
        z.object({
          invoiceId: z.number(),
          url: z.string(),
          financialTransactions: z.array(
            z.union([
              z.object({
                ...financialTransactionFacts,
                status: sepaStatus,
                paymentMethod: z.literal('SEPA Direct Debit'),
                paypalTransactionData: z.record(z.string(), z.never()),
                sepaDirectDebit: sepaDebitDetails,
              }),
              z.object({
                ...financialTransactionFacts,
                status: sepaStatus,
                paymentMethod: z.literal('ECP'),
                ecp: ecpAccount,
              }),
              z.object({
                ...financialTransactionFacts,
                status: z.literal('APPROVED'),
                paymentMethod: z.literal('Credit Card'),
                creditCard: orderedCard,
                authorizationCode: z.string().optional(),
              }),
            ]),
          ),
        }),
      ),
    }),
    fulfillment: z.object({ licenseKeys: z.array(z.string()) }),
  }),
);

export const batchOrderBody = describes<BatchOrder>()(
  z.object({ shopper: batchShopperBody, order: orderBody }),
);

export const planBody = describes<Plan>()(
  z.object({
    planId: z.number(),
    name: z.string(),
    currency: z.string(),
    recurringChargeAmount: amount,
    chargeFrequency: z.enum(chargeFrequencies),
    trialPeriodDays: z.number().optional(),
    initialChargeAmount: amount.optional(),
    maxNumberOfCharges: z.number().optional(),
    gracePeriodDays: z.number().optional(),
    chargeOnPlanSwitch: z.boolean(),
    status: z.enum(planStatuses),
  }),
);

const page = {
  totalResults: z.number().optional().meta({ description: 'With gettotal=true' }),
  lastPage: z.boolean(),
};

export const planPageBody = describes<PlanPage>()(
  z.object({
    ...page,
    plans: z.array(
      z.union([planBody, z.object({ planId: z.number(), name: z.string() })]).meta({
        description: 'Each plan in full, or with fulldescription=false its id and name',
      }),
    ),
  }),
);

const subscriptionPaymentSource = z.object({
  creditCardInfo: z
    .object({ billingContactInfo: billingContact.optional(), creditCard: cardResponse })
    .optional(),
  sepaDirectDebitInfo: z.object({ sepaDirectDebit: z.object(mandate) }).optional(),
  ecpInfo: z.object({ ecp: ecpAccount }).optional(),
});

export const subscriptionChargeBody = describes<SubscriptionChargeBody>()(
  z.object({
    chargeId: z.number(),
    subscriptionId: z.number(),
    planId: z.number().optional(),
    vaultedShopperId: z.number(),
    transactionId: z.string(),
    transactionDate: z.string().meta({ description: "yyyy-mm-dd, the merchant's day the charge fell due" }),
    amount,
    currency: z.string(),
    softDescriptor: z.string().optional(),
    merchantTransactionId: z.string().optional(),
    paymentSource: subscriptionPaymentSource,
    chargeInfo: z.object({
      chargeDescription: z.string().optional(),
      fromDate: z.string().optional(),
      toDate: z.string().optional(),
      chargeType: z.enum(['INITIAL', 'RECURRING']),
    }),
    processingInfo: z.object({ processingStatus: z.enum(['success', 'pending', 'fail', 'refunded']) }),
  }),
);

export const subscriptionBody = describes<SubscriptionBody>()(
  z.object({
    subscriptionId: z.number(),
    planId: z.number().optional().meta({ description: 'Absent for a merchant-managed subscription' }),
    vaultedShopperId: z.number(),
    status: z.enum(subscriptionStatuses),
    quantity: z.number(),
    softDescriptor: z.string().optional(),
    descriptorPhoneNumber: z.string().optional(),
    chargeFrequency: z.enum(chargeFrequencies).optional(),
    trialPeriodDays: z.number().optional(),
    overrideTrialPeriodDays: z.number().optional(),
    recurringChargeAmount: amount.optional(),
    overrideRecurringChargeAmount: amount.optional(),
    currency: z.string(),
    initialChargeAmount: amount.optional(),
    overrideInitialChargeAmount: amount.optional(),
    autoRenew: z.boolean(),
    nextChargeDate: z.string().optional().meta({ description: "yyyy-mm-dd by the merchant's clock" }),
    paymentSource: subscriptionPaymentSource,
    charge: subscriptionChargeBody.optional().meta({ description: 'The charge this request made, if any' }),
    ...splitBody,
  }),
);

export const subscriptionPageBody = describes<SubscriptionPage>()(
  z.object({
    ...page,
    subscriptions: z.array(
      z.union([
        subscriptionBody,
        z.object({ subscriptionId: z.number(), status: z.enum(subscriptionStatuses) }),
      ]),
    ),
  }),
);

export const chargePageBody = describes<ChargePage>()(
  z.object({ ...page, charges: z.array(subscriptionChargeBody) }),
);

export const switchChargeAmountBody = describes<SwitchChargeAmount>()(
  z.object({ value: amount, currency: z.string() }),
);

export const errorBodySchema = describes<ErrorBody>()(
  z.object({
    message: z.array(
      z.object({
        errorName: z.enum(Object.keys(errorCatalogue) as [ErrorName, ...ErrorName[]]),
        code: z.number(),
        description: z.string(),
        invalidProperty: z
          .object({ name: z.string(), messageValue: z.string().optional() })
          .optional()
          .meta({ description: 'The request property at fault (a path such as creditCard.cardNumber)' }),
        fraudEvents: z
          .object({
            fraudReferenceId: z.string(),
            fraudEvent: z.array(
              z.object({
                fraudEventCode: z.string(),
                fraudEventDecision: z.literal('D'),
                fraudEventExpression: z.string(),
              }),
            ),
          })
          .optional()
          .meta({ description: "FRAUD_DETECTED (15011): the merchant's fraud rules the sale broke" }),
      }),
    ),
  }),
);

const chargebackEvidenceBody = z.object({
  evidenceId: z.number(),
  mediaType: z.enum(['application/pdf', 'image/tiff', 'image/png', 'image/jpeg']),
  size: z.number().meta({ description: 'Bytes' }),
  sha256: z.string(),
  uploadDate: z.string().meta({ description: 'ISO 8601 instant' }),
});

export const chargebackBody = describes<Chargeback>()(
  z.object({
    chargebackId: z.number(),
    transactionId: z.string(),
    merchantTransactionId: z.string().optional(),
    amount: z.number(),
    currency: z.string(),
    status: z.enum(chargebackStatuses),
    reasonCode: z.string().optional(),
    reason: z.string().optional(),
    source: z.enum(['SANDBOX', 'PROCESSOR']),
    chargebackDate: z.string().meta({ description: 'ISO 8601 instant (merchant clock)' }),
    lastUpdateDate: z.string().meta({ description: 'ISO 8601 instant (merchant clock)' }),
    evidence: z.array(chargebackEvidenceBody),
  }),
);

export const chargebackListBody = describes<ChargebackList>()(
  z.object({ chargebacks: z.array(chargebackBody) }),
);
const optionalText = z.string().optional();
const lastFourMeta = { description: 'Only its last four characters, behind ****' };

export const vendorBody = describes<Vendor>()(
  z.object({
    vendorId: z.number(),
    email: z.string(),
    name: optionalText,
    vendorUrl: optionalText,
    ipnUrl: optionalText,
    firstName: optionalText,
    lastName: optionalText,
    address: optionalText,
    address2: optionalText,
    city: optionalText,
    zip: optionalText,
    country: z.string(),
    phone: optionalText,
    state: optionalText,
    taxId: optionalText,
    vatId: optionalText,
    defaultPayoutCurrency: optionalText,
    frequency: z.enum(payoutFrequencies),
    delay: z.number(),
    vendorPrincipal: z
      .object({
        firstName: optionalText,
        lastName: optionalText,
        address: optionalText,
        address2: optionalText,
        city: optionalText,
        zip: optionalText,
        state: optionalText,
        country: optionalText,
        dob: optionalText,
        personalIdentificationNumber: optionalText.meta(lastFourMeta),
        passportNumber: optionalText.meta(lastFourMeta),
        driverLicenseNumber: optionalText.meta(lastFourMeta),
        email: optionalText,
      })
      .optional(),
    payoutInfo: z
      .array(
        z.object({
          payoutType: z.enum(payoutTypes),
          baseCurrency: optionalText,
          minimalPayoutAmount: z.number().optional(),
          nameOnAccount: optionalText,
          bankAccountClass: optionalText,
          bankAccountType: optionalText,
          swiftBic: optionalText,
          bankName: optionalText,
          bankId: optionalText,
          country: optionalText,
          city: optionalText,
          address: optionalText,
          state: optionalText,
          zip: optionalText,
          iban: optionalText.meta(lastFourMeta),
          bankAccountId: optionalText.meta(lastFourMeta),
          paymentReference: optionalText,
        }),
      )
      .optional(),
    vendorAgreement: z.object({
      commissionPercent: z.number().optional(),
      accountStatus: z.enum(vendorAccountStatuses),
      recurringCommission: optionalText,
    }),
    verification: z.object({
      payoutStatus: z.enum(['Incomplete', 'Pending', 'Approved', 'Declined']),
      processingStatus: z.enum(['Active', 'Inactive']),
      missingItems: z.array(z.string()).optional(),
    }),
  }),
);

export const vendorPageBody = describes<VendorPage>()(z.object({ ...page, vendor: z.array(vendorBody) }));

const accountUpdateCardBody = z.object({
  creditCard: z.object({
    cardLastFourDigits: z.string(),
    cardType: z.enum(cardBrands).optional(),
    expirationMonth: z.string(),
    expirationYear: z.string(),
  }),
});

export const accountUpdateBatchBody = describes<AccountUpdateBatch>()(
  z.object({
    accountUpdateBatchId: z.string(),
    responseCode: z.string(),
    responseMessage: z.string(),
    accountUpdate: z.array(
      z.object({
        merchantUpdaterId: z.string(),
        updateResponseCode: z.string(),
        updateResponseMessage: z.string(),
        originalCard: accountUpdateCardBody,
        updatedCard: accountUpdateCardBody.optional(),
      }),
    ),
  }),
);
