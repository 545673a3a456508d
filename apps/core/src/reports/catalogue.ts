import type { ReportCode } from '@paywire/contracts';
import {
  accountBalance,
  activeSubscriptions,
  chargebacks,
  payoutDetail,
  payoutSummary,
  pendingRefunds,
  recurringCharges,
  transactionDetail,
  vendorBalance,
} from './queries.ts';

/** One report: how the original titles it and names its columns, and the statement that reads its rows. */
export interface ReportDefinition {
  title: string;
  /** Runs over a period (false: a snapshot of now, which takes no period). */
  windowed: boolean;
  columns: readonly string[];
  /** Columns that hold minor units of the row's currency, written with the currency's decimals. */
  moneyColumns: readonly string[];
  /** The report's rows; paged, a batch after a cursor (queries.ts). */
  source: (paged: boolean) => string;
}

const shopperColumns = [
  'Shopper ID',
  'Shopper First Name',
  'Shopper Last Name',
  'Shopper Email',
  'Shopper Country',
  'Company Name',
] as const;

export const reportCatalogue: Record<ReportCode, ReportDefinition> = {
  TransactionDetail: {
    title: 'Transaction Detail',
    windowed: true,
    columns: [
      'Invoice ID',
      'Original Invoice ID',
      'Merchant Transaction ID',
      'Transaction Type',
      'Transaction Date',
      'Refund / Chargeback Reason',
      'Payment Type',
      'Card Network',
      'Auth. Currency',
      'Merchant Sales (Auth Currency)',
      ...shopperColumns,
      'Soft Descriptor',
    ],
    moneyColumns: ['Merchant Sales (Auth Currency)'],
    source: transactionDetail,
  },
  RecurringCharges: {
    title: 'Recurring Charges',
    windowed: true,
    columns: [
      'Invoice ID',
      'Subscription ID',
      'Charge ID',
      'Charge Date',
      'Charge Status',
      'Failure Reason',
      'Payment Type',
      'Contract Name',
      'Auth. Currency',
      'Amount (Auth. Currency)',
      ...shopperColumns,
    ],
    moneyColumns: ['Amount (Auth. Currency)'],
    source: recurringCharges,
  },
  ActiveSubscriptions: {
    title: 'Active Subscriptions',
    windowed: false,
    columns: [
      'Invoice ID',
      'Subscription ID',
      'First Name',
      'Last Name',
      'Email Address',
      'Contract Name',
      'Price (Auth. Currency)',
      'Auth. Currency',
      'Last Charge Date',
      'Next Charge Date',
      'Shopper ID',
      'Subscription Creation Date',
    ],
    moneyColumns: ['Price (Auth. Currency)'],
    source: activeSubscriptions,
  },
  PendingRefunds: {
    title: 'Pending Refunds',
    windowed: false,
    columns: [
      'ID',
      'Invoice ID',
      'Merchant Transaction ID',
      'Pending Refund Creation Date',
      'Auth. Currency',
      'Refund Amount (Auth. Currency)',
      ...shopperColumns,
    ],
    moneyColumns: ['Refund Amount (Auth. Currency)'],
    source: pendingRefunds,
  },
  Chargebacks: {
    title: 'Chargebacks',
    windowed: true,
    columns: [
      'Chargeback/Refund Invoice ID',
      'Chargeback/Refund Invoice Amount',
      'Auth. Currency',
      'Event Date',
      'Event Type',
      'Chargeback Status',
      'Original Invoice ID',
      'Original Invoice Date',
      'Merchant Transaction ID',
      'Reason Code',
      'Reason Description',
      'Payment Type',
      'Last 4 Digits',
      ...shopperColumns,
    ],
    moneyColumns: ['Chargeback/Refund Invoice Amount'],
    source: chargebacks,
  },
  AccountBalance: {
    title: 'Account Balance',
    windowed: false,
    columns: ['Payout Currency', 'Gross Amount', 'Refunds', 'Chargebacks', 'Net Amount'],
    moneyColumns: ['Gross Amount', 'Refunds', 'Chargebacks', 'Net Amount'],
    source: accountBalance,
  },
  PayoutSummary: {
    title: 'Payout Summary',
    windowed: true,
    columns: [
      'Settlement Date',
      'Payment Type',
      'Auth. Currency',
      'Collected Count',
      'Collected Amount',
      'Failed Count',
      'Failed Amount',
      'Refunded Count',
      'Refunded Amount',
      'Net Amount',
    ],
    moneyColumns: ['Collected Amount', 'Failed Amount', 'Refunded Amount', 'Net Amount'],
    source: payoutSummary,
  },
  PayoutDetail: {
    title: 'Payout Detail',
    windowed: true,
    columns: [
      'Payout ID',
      'Vendor ID',
      'Vendor Name',
      'Payout Type',
      'Period End',
      'Payout Date',
      'Payout Status',
      'Attempts',
      'Failure Reason',
      'Payout Currency',
      'Payout Amount',
    ],
    moneyColumns: ['Payout Amount'],
    source: payoutDetail,
  },
  VendorBalance: {
    title: 'Vendor Balance',
    windowed: false,
    columns: ['Vendor ID', 'Vendor Name', 'Balance Currency', 'Balance'],
    moneyColumns: ['Balance'],
    source: vendorBalance,
  },
};
