import type { TransactionSearchPage } from '@paywire/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { api, formatDate, formatMoney } from '../api.ts';

interface CardTransaction {
  transactionId: string;
  merchantTransactionId?: string;
  cardTransactionType: string;
  amount: number;
  currency: string;
  creditCard?: {
    cardLastFourDigits: string;
    cardType: string;
    expirationMonth?: string;
    expirationYear?: string;
  };
  processingInfo?: { processingStatus: string; authorizationCode?: string };
}

export function TransactionDetail() {
  const { transactionId } = useParams({ from: '/transactions/$transactionId' });
  const queryClient = useQueryClient();
  const transaction = useQuery({
    queryKey: ['transaction', transactionId],
    queryFn: () => api<CardTransaction>(`/services/2/transactions/${encodeURIComponent(transactionId)}`),
  });
  const summary = useQuery({
    queryKey: ['transaction-summary', transactionId],
    queryFn: () => api<TransactionSearchPage>('/transactions', { query: { transactionId, pagesize: 1 } }),
  });
  const refresh = () =>
    queryClient.invalidateQueries({
      predicate: (query) => String(query.queryKey[0]).startsWith('transaction'),
    });
  const change = useMutation({
    mutationFn: (type: 'CAPTURE' | 'AUTH_REVERSAL') =>
      api('/services/2/transactions', { method: 'PUT', body: { cardTransactionType: type, transactionId } }),
    onSuccess: refresh,
  });
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const refund = useMutation({
    mutationFn: () =>
      api<{ refundTransactionId: number }>(
        `/services/2/transactions/refund/${encodeURIComponent(transactionId)}`,
        {
          method: 'POST',
          body: { ...(amount === '' ? {} : { amount }), ...(reason === '' ? {} : { reason }) },
        },
      ),
    onSuccess: () => {
      setAmount('');
      setReason('');
      return refresh();
    },
  });
  const submitRefund = (event: FormEvent) => {
    event.preventDefault();
    refund.mutate();
  };
  if (transaction.isPending) return <p role="status">Loading…</p>;
  if (transaction.isError) return <p role="alert">{transaction.error.message}</p>;
  const shown = transaction.data;
  const row = summary.data?.transactions[0];
  const open = row?.status === 'AUTHORIZED';
  const refundable = row !== undefined && row.capturedAmount > row.refundedAmount;
  return (
    <>
      <h1>Transaction {shown.transactionId}</h1>
      <dl className="facts">
        <dt>Status</dt>
        <dd>{row?.status ?? shown.cardTransactionType}</dd>
        <dt>Amount</dt>
        <dd>{formatMoney(shown.amount, shown.currency)}</dd>
        {row && (
          <>
            <dt>Captured</dt>
            <dd>{formatMoney(row.capturedAmount, row.currency)}</dd>
            <dt>Refunded</dt>
            <dd>{formatMoney(row.refundedAmount, row.currency)}</dd>
            <dt>Date (UTC)</dt>
            <dd>{formatDate(row.date)}</dd>
          </>
        )}
        <dt>Merchant transaction id</dt>
        <dd>{shown.merchantTransactionId ?? '—'}</dd>
        <dt>Card</dt>
        <dd>
          {shown.creditCard
            ? `${shown.creditCard.cardType} •••• ${shown.creditCard.cardLastFourDigits}`
            : '—'}
        </dd>
        <dt>Authorization code</dt>
        <dd>{shown.processingInfo?.authorizationCode ?? '—'}</dd>
      </dl>
      {open && (
        <section aria-labelledby="authorization">
          <h2 id="authorization">Authorization</h2>
          <div className="actions">
            <Button onPress={() => change.mutate('CAPTURE')} isDisabled={change.isPending}>
              Capture
            </Button>
            <Button onPress={() => change.mutate('AUTH_REVERSAL')} isDisabled={change.isPending}>
              Reverse
            </Button>
          </div>
        </section>
      )}
      {change.isError && <p role="alert">{change.error.message}</p>}
      {change.isSuccess && <p role="status">Done.</p>}
      {refundable && (
        <section aria-labelledby="refund">
          <h2 id="refund">Refund</h2>
          <Form onSubmit={submitRefund} aria-labelledby="refund">
            <TextField value={amount} onChange={setAmount} name="amount">
              <Label>Amount (empty: the whole remaining amount)</Label>
              <Input inputMode="decimal" />
            </TextField>
            <TextField value={reason} onChange={setReason} name="reason">
              <Label>Reason</Label>
              <Input />
            </TextField>
            <Button type="submit" isDisabled={refund.isPending}>
              Refund
            </Button>
          </Form>
        </section>
      )}
      {refund.isError && <p role="alert">{refund.error.message}</p>}
      {refund.isSuccess && <p role="status">Refunded: refund {refund.data.refundTransactionId}.</p>}
    </>
  );
}
