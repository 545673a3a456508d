import { useQuery } from '@tanstack/react-query';
import { api } from '../api.ts';
import { type ReportAnswer, ReportTable } from './report-table.tsx';

/** Chargebacks as the Reporting API's Chargebacks report lists them (docs/reports.md). */
export function Chargebacks() {
  const report = useQuery({
    queryKey: ['chargebacks'],
    queryFn: () =>
      api<ReportAnswer>('/services/2/report/Chargebacks', {
        query: { period: 'LAST_12_MONTHS', pageSize: 500 },
      }),
  });
  return (
    <>
      <h1>Chargebacks</h1>
      <p>The last 12 months.</p>
      {/* Evidence upload (representment) belongs here once its endpoint lands: docs/console.md, What is left. */}
      {report.isPending && <p role="status">Loading…</p>}
      {report.isError && <p role="alert">{report.error.message}</p>}
      {report.data && <ReportTable report={report.data} label="Chargebacks" />}
    </>
  );
}
