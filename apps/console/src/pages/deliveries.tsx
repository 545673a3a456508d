import type { NotificationDelivery, NotificationDeliveryPage } from '@paywire/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { api, formatDate } from '../api.ts';
import { TableRegion } from '../table-region.tsx';

const states = ['', 'pending', 'sending', 'delivered', 'failed'];

export function Deliveries() {
  const [state, setState] = useState('');
  const queryClient = useQueryClient();
  const log = useQuery({
    queryKey: ['deliveries', state],
    queryFn: () =>
      api<NotificationDeliveryPage>('/services/2/notification-deliveries', {
        query: { state, pagesize: 100 },
      }),
  });
  const redeliver = useMutation({
    mutationFn: (deliveryId: number) =>
      api<NotificationDelivery>(`/services/2/notification-deliveries/${deliveryId}/redeliver`, {
        method: 'POST',
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['deliveries'] }),
  });
  return (
    <>
      <h1>IPN deliveries</h1>
      <div className="field">
        <label htmlFor="delivery-state">State</label>
        <select id="delivery-state" value={state} onChange={(event) => setState(event.target.value)}>
          {states.map((option) => (
            <option key={option} value={option}>
              {option === '' ? 'Any' : option}
            </option>
          ))}
        </select>
      </div>
      <div aria-live="polite">
        {redeliver.isSuccess && <p role="status">Delivery {redeliver.data.deliveryId} is due again now.</p>}
        {redeliver.isError && <p role="alert">{redeliver.error.message}</p>}
      </div>
      {log.isPending && <p role="status">Loading…</p>}
      {log.isError && <p role="alert">{log.error.message}</p>}
      {log.data && (
        <TableRegion label="IPN deliveries">
          <table>
            <caption>
              {log.data.lastPage
                ? `${log.data.notificationDeliveries.length} deliveries`
                : 'The newest 100 deliveries'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Event</th>
                <th scope="col">Reference</th>
                <th scope="col">Destination</th>
                <th scope="col">Created (UTC)</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span className="visually-hidden">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {log.data.notificationDeliveries.map((delivery) => (
                <tr key={delivery.deliveryId}>
                  <td>{delivery.deliveryId}</td>
                  <td>{delivery.event}</td>
                  <td>{delivery.referenceNumber ?? ''}</td>
                  <td className="url">{delivery.destination}</td>
                  <td>{formatDate(delivery.createdAt)}</td>
                  <td className="number">
                    {delivery.attempts} of {delivery.maxAttempts}
                  </td>
                  <td>{delivery.lastStatus ?? delivery.lastError ?? ''}</td>
                  <td>{delivery.state}</td>
                  <td>
                    <Button
                      onPress={() => redeliver.mutate(delivery.deliveryId)}
                      aria-label={`Redeliver ${delivery.deliveryId}`}
                      isDisabled={redeliver.isPending && redeliver.variables === delivery.deliveryId}
                    >
                      Redeliver
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </>
  );
}
