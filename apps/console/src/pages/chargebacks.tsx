import type { Chargeback, ChargebackList } from '@paywire/contracts';
import { representableStatuses } from '@paywire/contracts/chargeback-statuses';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { api, formatDate, formatMoney } from '../api.ts';
import { TableRegion } from '../table-region.tsx';

/** The part the original's representment endpoint reads the file from (docs/chargebacks.md). */
const fileField = 'representment_file';

/**
 * The merchant's chargebacks (GET /services/2/chargebacks), each open one with a form that files evidence
 * through the original's representment endpoint. The Reporting API's Chargebacks report is under Reports.
 */
export function Chargebacks() {
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: ['chargebacks'],
    queryFn: () => api<ChargebackList>('/services/2/chargebacks'),
  });
  const upload = useMutation({
    mutationFn: ({ chargebackId, file }: { chargebackId: number; file: File }) => {
      const form = new FormData();
      form.append(fileField, file);
      return api<Chargeback>('/services/2/chargeback/upload_representment', {
        method: 'POST',
        form,
        query: { chargeback_id: chargebackId },
      });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['chargebacks'] }),
  });
  return (
    <>
      <h1>Chargebacks</h1>
      <p>Evidence: a PDF, TIFF, PNG or JPEG file, read by its content.</p>
      <div aria-live="polite">
        {upload.isSuccess && (
          <p role="status">
            Evidence filed for chargeback {upload.data.chargebackId}: {upload.data.status}.
          </p>
        )}
        {upload.isError && <p role="alert">{upload.error.message}</p>}
      </div>
      {list.isPending && <p role="status">Loading…</p>}
      {list.isError && <p role="alert">{list.error.message}</p>}
      {list.data && list.data.chargebacks.length === 0 && <p>No chargebacks.</p>}
      {list.data && list.data.chargebacks.length > 0 && (
        <TableRegion label="Chargebacks">
          <table>
            <caption>
              {list.data.chargebacks.length === 1
                ? '1 chargeback'
                : `${list.data.chargebacks.length} chargebacks`}
            </caption>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Transaction</th>
                <th scope="col">Amount</th>
                <th scope="col">Reason</th>
                <th scope="col">Status</th>
                <th scope="col">Opened</th>
                <th scope="col">Evidence</th>
              </tr>
            </thead>
            <tbody>
              {list.data.chargebacks.map((chargeback) => (
                <tr key={chargeback.chargebackId}>
                  <td>{chargeback.chargebackId}</td>
                  <td>
                    <Link
                      to="/transactions/$transactionId"
                      params={{ transactionId: chargeback.transactionId }}
                    >
                      {chargeback.transactionId}
                    </Link>
                  </td>
                  <td className="number">{formatMoney(chargeback.amount, chargeback.currency)}</td>
                  <td className="text">
                    {[chargeback.reasonCode, chargeback.reason]
                      .filter((part) => part !== undefined)
                      .join(' ') || '—'}
                  </td>
                  <td>{chargeback.status}</td>
                  <td>{formatDate(chargeback.chargebackDate)}</td>
                  <td>
                    {chargeback.evidence.length === 0 ? 'none' : `${chargeback.evidence.length} file(s)`}
                    {representableStatuses.includes(chargeback.status) && (
                      <EvidenceForm
                        chargebackId={chargeback.chargebackId}
                        pending={upload.isPending}
                        onFile={(file) => upload.mutate({ chargebackId: chargeback.chargebackId, file })}
                      />
                    )}
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

/** One chargeback's evidence file, chosen and then sent. */
function EvidenceForm({
  chargebackId,
  pending,
  onFile,
}: {
  chargebackId: number;
  pending: boolean;
  onFile: (file: File) => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (file) onFile(file);
  };
  const inputId = `evidence-${chargebackId}`;
  return (
    <Form onSubmit={submit} className="evidence">
      <label htmlFor={inputId}>Evidence for chargeback {chargebackId}</label>
      <input
        id={inputId}
        type="file"
        accept="application/pdf,image/tiff,image/png,image/jpeg"
        onChange={(event) => setFile(event.target.files?.[0] ?? null)}
      />
      <Button
        type="submit"
        isDisabled={pending || file === null}
        aria-label={`Upload evidence for chargeback ${chargebackId}`}
      >
        Upload
      </Button>
    </Form>
  );
}
