import { useState } from 'react';
import { publicApi, withQuery } from '../api.ts';

/** The Reporting API's reports (docs/reports.md); snapshot reports ignore the period. */
const reports = [
  { code: 'TransactionDetail', title: 'Transaction detail' },
  { code: 'RecurringCharges', title: 'Recurring charges' },
  { code: 'ActiveSubscriptions', title: 'Active subscriptions' },
  { code: 'PendingRefunds', title: 'Pending refunds' },
  { code: 'Chargebacks', title: 'Chargebacks' },
  { code: 'AccountBalance', title: 'Account balance' },
  { code: 'PayoutSummary', title: 'SEPA payout summary' },
];
const periods = ['THIS_MONTH', 'LAST_WEEK', 'LAST_MONTH', 'LAST_3_MONTHS', 'LAST_6_MONTHS', 'LAST_12_MONTHS'];

/** Downloads are plain links: the browser sends the session cookie and saves the CSV the report answers. */
export function Reports() {
  const [period, setPeriod] = useState('THIS_MONTH');
  return (
    <>
      <h1>Reports</h1>
      <div className="field">
        <label htmlFor="period">Period</label>
        <select id="period" value={period} onChange={(event) => setPeriod(event.target.value)}>
          {periods.map((option) => (
            <option key={option} value={option}>
              {option.replaceAll('_', ' ').toLowerCase()}
            </option>
          ))}
        </select>
      </div>
      <ul className="downloads">
        {reports.map(({ code, title }) => (
          <li key={code}>
            <a
              href={withQuery(`${publicApi}/report/${code}`, { period, format: 'csv', gettotal: 'true' })}
              download={`${code}.csv`}
            >
              {title} (CSV)
            </a>
            {' · '}
            <a
              href={withQuery(`${publicApi}/report/${code}`, { period, format: 'json' })}
              download={`${code}.json`}
            >
              {title} (JSON)
            </a>
          </li>
        ))}
      </ul>
    </>
  );
}
