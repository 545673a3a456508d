import { currencyExponent, minorToDecimal } from '@paywire/contracts';

/**
 * A payout run's SEPA credit transfers as one ISO 20022 customer credit transfer initiation (pain.001.001.03,
 * the version the SEPA rulebooks name), which a bank takes as a file: one payment information block per
 * currency, one transaction per payout, its end-to-end id the payout's id (a bank pays a reference once).
 * The creditors' IBANs are in clear in it: it is handed to the bank and never logged or stored.
 */

/** Who pays the vendors: the operator's account (PAYOUT_DEBTOR_*). */
export interface PayoutDebtor {
  name: string;
  iban: string;
  bic?: string;
}

export interface CreditTransfer {
  /** The payout's id: the end-to-end id. */
  reference: string;
  amountMinor: number;
  currency: string;
  creditorName: string;
  creditorIban: string;
  creditorBic?: string;
  /** The remittance text the vendor reads on its statement. */
  remittance: string;
}

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};
const text = (value: string, max: number) =>
  value.slice(0, max).replace(/[&<>"']/g, (c) => escapes[c] as string);

const element = (name: string, content: string) => `<${name}>${content}</${name}>`;

function agent(bic: string | undefined): string {
  return element('FinInstnId', bic ? element('BIC', bic) : element('Othr', element('Id', 'NOTPROVIDED')));
}

/** The decimal sum of amounts in minor units of one currency. */
const sumOf = (transfers: CreditTransfer[], currency: string) =>
  minorToDecimal(
    transfers.reduce((sum, t) => sum + t.amountMinor, 0),
    currency,
  );

/**
 * The file: `messageId` unique per file (Max35Text), `createdAt` its creation, `executionDate` the day the
 * transfers are asked for (YYYY-MM-DD).
 */
export function pain001(input: {
  messageId: string;
  createdAt: Date;
  executionDate: string;
  debtor: PayoutDebtor;
  transfers: CreditTransfer[];
}): string {
  const { messageId, debtor, transfers } = input;
  const currencies = [...new Set(transfers.map((t) => t.currency))].sort();
  // The header's control sum adds every amount whatever its currency: exactly, in thousandths (no
  // currency has more than three decimals).
  const thousandths = transfers.reduce(
    (sum, t) => sum + t.amountMinor * 10 ** (3 - currencyExponent(t.currency)),
    0,
  );
  const blocks = currencies.map((currency, index) => {
    const own = transfers.filter((t) => t.currency === currency);
    return element(
      'PmtInf',
      element('PmtInfId', text(`${messageId}-${index + 1}`, 35)) +
        element('PmtMtd', 'TRF') +
        element('BtchBookg', 'true') +
        element('NbOfTxs', String(own.length)) +
        element('CtrlSum', sumOf(own, currency)) +
        element('PmtTpInf', element('SvcLvl', element('Cd', 'SEPA'))) +
        element('ReqdExctnDt', input.executionDate) +
        element('Dbtr', element('Nm', text(debtor.name, 140))) +
        element('DbtrAcct', element('Id', element('IBAN', debtor.iban))) +
        element('DbtrAgt', agent(debtor.bic)) +
        element('ChrgBr', 'SLEV') +
        own
          .map((t) =>
            element(
              'CdtTrfTxInf',
              element('PmtId', element('EndToEndId', text(t.reference, 35))) +
                element(
                  'Amt',
                  `<InstdAmt Ccy="${t.currency}">${minorToDecimal(t.amountMinor, t.currency)}</InstdAmt>`,
                ) +
                (t.creditorBic ? element('CdtrAgt', agent(t.creditorBic)) : '') +
                element('Cdtr', element('Nm', text(t.creditorName, 140))) +
                element('CdtrAcct', element('Id', element('IBAN', t.creditorIban))) +
                element('RmtInf', element('Ustrd', text(t.remittance, 140))),
            ),
          )
          .join(''),
    );
  });
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03">' +
    element(
      'CstmrCdtTrfInitn',
      element(
        'GrpHdr',
        element('MsgId', text(messageId, 35)) +
          element('CreDtTm', input.createdAt.toISOString().slice(0, 19)) +
          element('NbOfTxs', String(transfers.length)) +
          element(
            'CtrlSum',
            `${Math.floor(thousandths / 1000)}.${String(thousandths % 1000).padStart(3, '0')}`,
          ) +
          element('InitgPty', element('Nm', text(debtor.name, 140))),
      ) + blocks.join(''),
    ) +
    '</Document>'
  );
}
