import type { ChargePage, SubscriptionBody, SubscriptionPage } from '@paywire/contracts';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { api, formatMoney } from '../api.ts';
import { TableRegion } from '../table-region.tsx';

const described = (entry: SubscriptionPage['subscriptions'][number]): entry is SubscriptionBody =>
  'currency' in entry;

export function Subscriptions() {
  const page = useQuery({
    queryKey: ['subscriptions'],
    queryFn: () =>
      api<SubscriptionPage>('/services/2/recurring/subscriptions', {
        query: { pagesize: 100, fulldescription: 'true' },
      }),
  });
  if (page.isPending) return <p role="status">Loading…</p>;
  if (page.isError) return <p role="alert">{page.error.message}</p>;
  const subscriptions = page.data.subscriptions.filter(described);
  return (
    <>
      <h1>Subscriptions</h1>
      <TableRegion label="Subscriptions">
        <table>
          <caption>
            {page.data.lastPage ? `${subscriptions.length} subscriptions` : 'The newest 100 subscriptions'}
          </caption>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Plan</th>
              <th scope="col">Shopper</th>
              <th scope="col">Amount</th>
              <th scope="col">Next charge</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {subscriptions.map((subscription) => (
              <tr key={subscription.subscriptionId}>
                <td>
                  <Link
                    to="/subscriptions/$subscriptionId"
                    params={{ subscriptionId: String(subscription.subscriptionId) }}
                  >
                    {subscription.subscriptionId}
                  </Link>
                </td>
                <td>{subscription.planId ?? 'on demand'}</td>
                <td>{subscription.vaultedShopperId}</td>
                <td className="number">
                  {formatMoney(
                    subscription.overrideRecurringChargeAmount ?? subscription.recurringChargeAmount ?? 0,
                    subscription.currency,
                  )}
                </td>
                <td>{subscription.nextChargeDate ?? '—'}</td>
                <td>{subscription.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
    </>
  );
}

export function SubscriptionDetail() {
  const { subscriptionId } = useParams({ from: '/subscriptions/$subscriptionId' });
  const charges = useQuery({
    queryKey: ['subscription-charges', subscriptionId],
    queryFn: () =>
      api<ChargePage>(`/services/2/recurring/subscriptions/${encodeURIComponent(subscriptionId)}/charges`, {
        query: { pagesize: 100 },
      }),
  });
  return (
    <>
      <h1>Subscription {subscriptionId}</h1>
      <h2>Charges</h2>
      {charges.isPending && <p role="status">Loading…</p>}
      {charges.isError && <p role="alert">{charges.error.message}</p>}
      {charges.data && (
        <TableRegion label="Charges">
          <table>
            <caption>{charges.data.charges.length} charges</caption>
            <thead>
              <tr>
                <th scope="col">Charge</th>
                <th scope="col">Date</th>
                <th scope="col">Type</th>
                <th scope="col">Amount</th>
                <th scope="col">Transaction</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {charges.data.charges.map((charge) => (
                <tr key={charge.chargeId}>
                  <td>{charge.chargeId}</td>
                  <td>{charge.transactionDate}</td>
                  <td>{charge.chargeInfo.chargeType}</td>
                  <td className="number">{formatMoney(charge.amount, charge.currency)}</td>
                  <td>
                    {charge.paymentSource.creditCardInfo && charge.transactionId ? (
                      <Link
                        to="/transactions/$transactionId"
                        params={{ transactionId: charge.transactionId }}
                      >
                        {charge.transactionId}
                      </Link>
                    ) : (
                      charge.transactionId
                    )}
                  </td>
                  <td>{charge.processingInfo.processingStatus}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </>
  );
}
