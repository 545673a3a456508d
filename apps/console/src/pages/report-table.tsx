import { TableRegion } from '../table-region.tsx';

/** A Reporting API answer's rows, every column as the report names it. */
export interface ReportAnswer {
  title: string;
  date_range?: string;
  data: Record<string, string>[];
}

export function ReportTable({ report, label }: { report: ReportAnswer; label: string }) {
  const columns = Object.keys(report.data[0] ?? {});
  if (report.data.length === 0) return <p>No rows{report.date_range ? ` for ${report.date_range}` : ''}.</p>;
  return (
    <TableRegion label={label}>
      <table>
        <caption>
          {report.title}
          {report.date_range ? `, ${report.date_range}` : ''}
        </caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {report.data.map((row, index) => (
            // report rows have no id of their own; their order is the report's
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            <tr key={index}>
              {columns.map((column) => (
                <td key={column}>{row[column]}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}
