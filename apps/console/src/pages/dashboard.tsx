import type { Dashboard } from '@paywire/contracts';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from '../api.ts';
import { Chart } from '../chart.tsx';

export function DashboardPage() {
  const figures = useQuery({
    queryKey: ['dashboard'],
    queryFn: () => api<Dashboard>('/dashboard', { query: { days: 30 } }),
  });
  return (
    <>
      <h1>Dashboard</h1>
      <p>The last 30 days, by day (UTC).</p>
      {figures.isPending && <p role="status">Loading…</p>}
      {figures.isError && <p role="alert">{figures.error.message}</p>}
      {figures.data && <Charts figures={figures.data} />}
    </>
  );
}

function Charts({ figures }: { figures: Dashboard }) {
  const options = useMemo(() => {
    const { approved, declined } = figures.approvals;
    const rate = approved.map((count, index) => {
      const total = count + (declined[index] ?? 0);
      return total === 0 ? null : Math.round((count / total) * 1000) / 10;
    });
    return {
      volume: {
        legend: {},
        xAxis: { type: 'category', data: figures.days },
        yAxis: { type: 'value' },
        series: figures.volume.map(({ currency, amounts }) => ({
          name: currency,
          type: 'bar',
          data: amounts,
        })),
      },
      approval: {
        xAxis: { type: 'category', data: figures.days },
        yAxis: { type: 'value', min: 0, max: 100, axisLabel: { formatter: '{value} %' } },
        series: [{ name: 'Approval rate', type: 'line', data: rate, connectNulls: true }],
      },
      declines: {
        tooltip: { trigger: 'item', renderMode: 'richText' },
        series: [
          {
            name: 'Declines',
            type: 'pie',
            data: figures.declinesByReason.map(({ reason, count }) => ({ name: reason, value: count })),
          },
        ],
      },
      deliveries: {
        tooltip: { trigger: 'item', renderMode: 'richText' },
        xAxis: { type: 'category', data: figures.deliveries.map(({ state }) => state) },
        yAxis: { type: 'value' },
        series: [{ name: 'Deliveries', type: 'bar', data: figures.deliveries.map(({ count }) => count) }],
      },
    };
  }, [figures]);
  const totalDeclines = figures.declinesByReason.reduce((sum, { count }) => sum + count, 0);
  return (
    <div className="grid">
      <section aria-labelledby="volume">
        <h2 id="volume">Volume</h2>
        {figures.volume.length === 0 ? (
          <p>No captured sales yet.</p>
        ) : (
          <Chart option={options.volume} label="Captured volume per day and currency" />
        )}
      </section>
      <section aria-labelledby="approval">
        <h2 id="approval">Approval rate</h2>
        <Chart option={options.approval} label="Share of authorizations approved per day, in percent" />
      </section>
      <section aria-labelledby="declines">
        <h2 id="declines">Declines by reason</h2>
        {totalDeclines === 0 ? (
          <p>No declines.</p>
        ) : (
          <Chart option={options.declines} label="Declined authorizations by reason" />
        )}
        <ul className="figures">
          {figures.declinesByReason.map(({ reason, count }) => (
            <li key={reason}>
              {reason}: {count}
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="deliveries">
        <h2 id="deliveries">IPN delivery health</h2>
        {figures.deliveries.length === 0 ? (
          <p>No IPN deliveries.</p>
        ) : (
          <Chart option={options.deliveries} label="IPN deliveries by state" />
        )}
        <ul className="figures">
          {figures.deliveries.map(({ state, count }) => (
            <li key={state}>
              {state}: {count}
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
