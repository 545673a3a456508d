import type { TransactionSearchPage } from '@paywire/contracts';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { api, formatDate, formatMoney } from '../api.ts';
import { TableRegion } from '../table-region.tsx';

const criteria = [
  { name: 'transactionId', label: 'Transaction id', inputMode: 'numeric' },
  { name: 'merchantTransactionId', label: 'Merchant transaction id', inputMode: 'text' },
  { name: 'lastFour', label: 'Card last four', inputMode: 'numeric' },
  { name: 'amount', label: 'Amount', inputMode: 'decimal' },
  { name: 'currency', label: 'Currency', inputMode: 'text' },
  { name: 'from', label: 'From (YYYY-MM-DD)', inputMode: 'text' },
  { name: 'to', label: 'To (YYYY-MM-DD)', inputMode: 'text' },
] as const;
const statuses = ['', 'AUTHORIZED', 'CAPTURED', 'REVERSED', 'REFUNDED', 'PARTIALLY_REFUNDED'];

type Criterion = (typeof criteria)[number]['name'] | 'status';
export type SearchCriteria = Partial<Record<Criterion, string>>;

/** The page's URL search parameters: the criteria, as text (the API checks them). */
export function parseSearch(search: Record<string, unknown>): SearchCriteria {
  const names: Criterion[] = [...criteria.map((criterion) => criterion.name), 'status'];
  return Object.fromEntries(
    names.flatMap((name) =>
      typeof search[name] === 'string' && search[name] !== '' ? [[name, search[name]]] : [],
    ),
  );
}

export function Transactions() {
  const search = useSearch({ from: '/transactions' });
  const navigate = useNavigate({ from: '/transactions' });
  const [draft, setDraft] = useState<SearchCriteria>(search);
  const results = useQuery({
    queryKey: ['transactions', search],
    queryFn: () => api<TransactionSearchPage>('/transactions', { query: { ...search, pagesize: 50 } }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate({ search: parseSearch(draft) });
  };
  return (
    <>
      <h1>Transactions</h1>
      <Form onSubmit={submit} aria-label="Search transactions" className="search">
        {criteria.map(({ name, label, inputMode }) => (
          <TextField
            key={name}
            name={name}
            value={draft[name] ?? ''}
            onChange={(value) => setDraft({ ...draft, [name]: value })}
          >
            <Label>{label}</Label>
            <Input inputMode={inputMode} />
          </TextField>
        ))}
        <div className="field">
          <label htmlFor="status">Status</label>
          <select
            id="status"
            value={draft.status ?? ''}
            onChange={(event) => setDraft({ ...draft, status: event.target.value })}
          >
            {statuses.map((status) => (
              <option key={status} value={status}>
                {status === '' ? 'Any' : status}
              </option>
            ))}
          </select>
        </div>
        <Button type="submit">Search</Button>
      </Form>
      {results.isPending && <p role="status">Searching…</p>}
      {results.isError && <p role="alert">{results.error.message}</p>}
      {results.data && (
        <TableRegion label="Matching transactions">
          <table>
            <caption>
              {results.data.transactions.length} transaction
              {results.data.transactions.length === 1 ? '' : 's'}
              {results.data.nextAfter === undefined
                ? ''
                : ' (the newest 50; narrow the search for older ones)'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Merchant id</th>
                <th scope="col">Date (UTC)</th>
                <th scope="col">Card</th>
                <th scope="col">Amount</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {results.data.transactions.map((transaction) => (
                <tr key={transaction.transactionId}>
                  <td>
                    <Link
                      to="/transactions/$transactionId"
                      params={{ transactionId: String(transaction.transactionId) }}
                    >
                      {transaction.transactionId}
                    </Link>
                  </td>
                  <td>{transaction.merchantTransactionId ?? ''}</td>
                  <td>{formatDate(transaction.date)}</td>
                  <td>
                    {transaction.cardLastFourDigits
                      ? `${transaction.cardType ?? ''} •••• ${transaction.cardLastFourDigits}`
                      : ''}
                  </td>
                  <td className="number">{formatMoney(transaction.amount, transaction.currency)}</td>
                  <td>{transaction.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </>
  );
}
