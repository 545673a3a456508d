import { describe, expect, it } from 'vitest';
import { decodePageToken, encodePageToken, type ReportPageToken, reportQuery } from './reports.ts';
import { ValidationFailure, validate } from './validation.ts';

const errorOf = (input: Record<string, unknown>) => {
  try {
    validate(reportQuery, { reportCode: 'TransactionDetail', ...input });
  } catch (error) {
    if (error instanceof ValidationFailure) return error.messages[0];
  }
  return undefined;
};

describe('reportQuery', () => {
  it('takes dates as MM/DD/YYYY or YYYY-MM-DD, normalised, and a page size as text', () => {
    const query = validate(reportQuery, {
      reportCode: 'TransactionDetail',
      period: 'CUSTOM',
      from_date: '01/30/2026',
      to_date: '2026-02-28',
      pageSize: '50',
      unknown: 'ignored',
    });
    expect(query).toMatchObject({ from_date: '2026-01-30', to_date: '2026-02-28', pageSize: 50 });
  });

  it.each([
    [{ reportCode: 'Nope' }, 'INVALID_INPUT', 'reportCode'],
    [{ from_date: '02/30/2026' }, 'INVALID_INPUT', 'from_date'],
    [{ from_date: '2026-1-3' }, 'INVALID_INPUT', 'from_date'],
    [{ to_time: '24:00:00' }, 'INVALID_INPUT', 'to_time'],
    [{ pageSize: 'ten' }, 'INVALID_INPUT', 'pageSize'],
    [{ pageSize: '0' }, 'NEGATIVE_PAGE_SIZE', 'pageSize'],
    [{ pageSize: '5001' }, 'MAX_PAGE_SIZE_EXCEEDED', 'pageSize'],
    [{ currency: 'XXX' }, 'INVALID_INPUT', 'currency'],
  ])('refuses %o with %s naming %s', (input, errorName, property) => {
    expect(errorOf(input)).toMatchObject({ errorName, invalidProperty: { name: property } });
  });
});

describe('page tokens', () => {
  const token: ReportPageToken = {
    reportCode: 'Chargebacks',
    filters: { currency: 'EUR' },
    window: { from: '2026-01-01T08:00:00.000Z', to: '2026-02-01T08:00:00.000Z' },
    after: { at: '2026-01-05 10:00:00.123456+00', rank: 0, id: '42' },
    startRow: 101,
    pageSize: 100,
    withTotals: true,
  };

  it('come back as they were handed out', () => {
    expect(decodePageToken(encodePageToken(token))).toEqual(token);
  });

  it('are undefined for anything else', () => {
    for (const text of ['', 'bm9wZQ', Buffer.from('{"reportCode":"Nope"}').toString('base64url'), '%%%']) {
      expect(decodePageToken(text)).toBeUndefined();
    }
  });
});
