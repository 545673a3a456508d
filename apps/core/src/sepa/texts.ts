import { minorToDecimal, type PreNotificationLanguage } from '@paywire/contracts';

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (value: number) => String(value).padStart(2, '0');

/** dd-Mon-yy in UTC (e.g. 05-Mar-26): mandate dates and invoice dates as the original shows them. */
export function shortDate(date: Date): string {
  return `${pad(date.getUTCDate())}-${months[date.getUTCMonth()]}-${pad(date.getUTCFullYear() % 100)}`;
}

/** What a pre-notification tells the shopper: amount, collection date, mandate and creditor. */
export interface PreNotification {
  amountMinor: number;
  currency: string;
  collectionDate: Date;
  mandateId: string;
  ibanLastFour: string;
}

/** The creditor named in the texts: the service collects on the merchant's behalf. */
export const creditorName = 'Paywire';

function numericDate(date: Date, separator: string): string {
  return [pad(date.getUTCDate()), pad(date.getUTCMonth() + 1), date.getUTCFullYear()].join(separator);
}

const templates: Record<PreNotificationLanguage, (n: PreNotification, amount: string) => string> = {
  en: (n, amount) =>
    `We will debit ${n.currency} ${amount} from your account ending in ${n.ibanLastFour} on or after ` +
    `${shortDate(n.collectionDate)} under SEPA Direct Debit mandate ${n.mandateId} (creditor: ${creditorName}).`,
  de: (n, amount) =>
    `Wir ziehen am oder nach dem ${numericDate(n.collectionDate, '.')} ${amount} ${n.currency} von Ihrem ` +
    `Konto mit der Endung ${n.ibanLastFour} per SEPA-Lastschrift ein (Mandatsreferenz ${n.mandateId}, ` +
    `Gläubiger: ${creditorName}).`,
  fr: (n, amount) =>
    `Nous prélèverons ${amount} ${n.currency} sur votre compte se terminant par ${n.ibanLastFour} à partir ` +
    `du ${numericDate(n.collectionDate, '/')}, au titre du mandat de prélèvement SEPA ${n.mandateId} ` +
    `(créancier : ${creditorName}).`,
  es: (n, amount) =>
    `Cargaremos ${amount} ${n.currency} en su cuenta terminada en ${n.ibanLastFour} a partir del ` +
    `${numericDate(n.collectionDate, '/')}, según la orden de domiciliación SEPA ${n.mandateId} ` +
    `(acreedor: ${creditorName}).`,
  it: (n, amount) =>
    `Addebiteremo ${amount} ${n.currency} sul suo conto che termina con ${n.ibanLastFour} a partire dal ` +
    `${numericDate(n.collectionDate, '/')}, in base al mandato di addebito diretto SEPA ${n.mandateId} ` +
    `(creditore: ${creditorName}).`,
  nl: (n, amount) =>
    `Wij schrijven op of na ${numericDate(n.collectionDate, '-')} ${n.currency} ${amount} af van uw ` +
    `rekening eindigend op ${n.ibanLastFour} op basis van SEPA-incassomachtiging ${n.mandateId} ` +
    `(incassant: ${creditorName}).`,
  pt: (n, amount) =>
    `Debitaremos ${amount} ${n.currency} da sua conta terminada em ${n.ibanLastFour} a partir de ` +
    `${numericDate(n.collectionDate, '/')}, ao abrigo da autorização de débito direto SEPA ${n.mandateId} ` +
    `(credor: ${creditorName}).`,
};

/** The text in one language; amounts carry a decimal comma everywhere but in English. */
export function preNotificationText(
  language: PreNotificationLanguage,
  notification: PreNotification,
): string {
  const amount = minorToDecimal(notification.amountMinor, notification.currency);
  return templates[language](notification, language === 'en' ? amount : amount.replace('.', ','));
}
