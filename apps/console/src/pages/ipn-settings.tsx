import type { IpnDestination, NotificationConfig } from '@paywire/contracts';
import { ipnEvents, sendFlagOf } from '@paywire/contracts/ipn-events';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Button, Checkbox, CheckboxGroup, Form, Input, Label, TextField } from 'react-aria-components';
import { ApiError, api } from '../api.ts';

/** Destinations being edited; `key` tells React which one is which while some are removed. */
type Draft = { key: number; ipnUrl: string; events: string[] }[];
let nextKey = 0;

const draftOf = (config: NotificationConfig | null): Draft =>
  (config?.ipnDestinations ?? []).map((destination: IpnDestination) => ({
    key: nextKey++,
    ipnUrl: destination.ipnUrl,
    events: ipnEvents.filter((event) => destination[sendFlagOf(event)]),
  }));

export function IpnSettings() {
  const queryClient = useQueryClient();
  const stored = useQuery({
    queryKey: ['notification-config'],
    queryFn: async () => {
      try {
        return await api<NotificationConfig>('/services/2/notification-config');
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null; // nothing configured yet
        throw error;
      }
    },
  });
  const [destinations, setDestinations] = useState<Draft>([]);
  const [ensureReceipt, setEnsureReceipt] = useState(false);
  useEffect(() => {
    if (stored.data === undefined) return;
    setDestinations(draftOf(stored.data));
    setEnsureReceipt(stored.data?.ensureNotificationReceipt ?? false);
  }, [stored.data]);
  const save = useMutation({
    mutationFn: () =>
      api<NotificationConfig>('/services/2/notification-config', {
        method: 'POST',
        body: {
          ipnDestinations: destinations.map(({ ipnUrl, events }) => ({
            ipnUrl,
            ...Object.fromEntries(events.map((event) => [`send${event}`, true])),
          })),
          ensureNotificationReceipt: ensureReceipt,
          receiveAffiliateNotifications: stored.data?.receiveAffiliateNotifications ?? false,
        },
      }),
    onSuccess: (saved) => queryClient.setQueryData(['notification-config'], saved),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const update = (index: number, change: Partial<Draft[number]>) =>
    setDestinations(
      destinations.map((destination, at) => (at === index ? { ...destination, ...change } : destination)),
    );
  if (stored.isPending) return <p role="status">Loading…</p>;
  if (stored.isError) return <p role="alert">{stored.error.message}</p>;
  return (
    <>
      <h1>IPN settings</h1>
      <Form onSubmit={submit} aria-label="IPN settings">
        {destinations.map((destination, index) => (
          <fieldset key={destination.key} className="destination">
            <legend>Destination {index + 1}</legend>
            <TextField
              isRequired
              type="url"
              value={destination.ipnUrl}
              onChange={(ipnUrl) => update(index, { ipnUrl })}
            >
              <Label>URL</Label>
              <Input />
            </TextField>
            <CheckboxGroup
              value={destination.events}
              onChange={(events) => update(index, { events })}
              className="events"
            >
              <Label>Events</Label>
              {ipnEvents.map((event) => (
                <Checkbox key={event} value={event}>
                  {event}
                </Checkbox>
              ))}
            </CheckboxGroup>
            <Button onPress={() => setDestinations(destinations.filter((_, at) => at !== index))}>
              Remove destination {index + 1}
            </Button>
          </fieldset>
        ))}
        {destinations.length < 10 && (
          <Button
            onPress={() =>
              setDestinations([...destinations, { key: nextKey++, ipnUrl: '', events: [...ipnEvents] }])
            }
          >
            Add destination
          </Button>
        )}
        <Checkbox isSelected={ensureReceipt} onChange={setEnsureReceipt}>
          Retry until acknowledged (ensure notification receipt)
        </Checkbox>
        <Button type="submit" isDisabled={save.isPending || destinations.length === 0}>
          Save
        </Button>
      </Form>
      <div aria-live="polite">
        {save.isSuccess && <p role="status">Saved.</p>}
        {save.isError && <p role="alert">{save.error.message}</p>}
      </div>
    </>
  );
}
