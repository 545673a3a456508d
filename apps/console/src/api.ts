/**
 * The console's one way to Paywire: its own API under /console/api (session, search, dashboard) and the
 * public interface as the signed-in merchant under /console/api/services/2. The session cookie travels by
 * itself (HttpOnly); a change also carries the session's CSRF token, learnt at sign-in or from GET /session.
 */

const apiBase = '/console/api';
export const publicApi = `${apiBase}/services/2`;

let csrfToken = '';
export const rememberCsrfToken = (token: string) => {
  csrfToken = token;
};

interface ErrorMessage {
  errorName: string;
  code: number;
  description: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly errorName: string;
  constructor(status: number, messages: ErrorMessage[]) {
    super(messages.map((message) => message.description).join('; ') || `request failed (${status})`);
    this.status = status;
    this.errorName = messages[0]?.errorName ?? 'UNKNOWN';
  }
}

type Query = Record<string, string | number | undefined>;

export function withQuery(path: string, query: Query = {}): string {
  const entries = Object.entries(query).filter(
    (entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '',
  );
  return entries.length === 0
    ? path
    : `${path}?${new URLSearchParams(entries.map(([key, value]) => [key, String(value)]))}`;
}

/**
 * A call of the console's API: `body` goes as JSON, `form` (a file upload) as multipart/form-data, whose
 * boundary the browser writes into the Content-Type itself.
 */
export async function api<T>(
  path: string,
  {
    method = 'GET',
    body,
    form,
    query,
  }: { method?: string; body?: unknown; form?: FormData; query?: Query } = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET') {
    headers['X-CSRF-Token'] = csrfToken;
    headers['Idempotency-Key'] = crypto.randomUUID(); // a retried change runs once
  }
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(withQuery(`${apiBase}${path}`, query), {
    method,
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(form === undefined ? {} : { body: form }),
  });
  const text = await response.text();
  const parsed = text === '' ? undefined : JSON.parse(text);
  if (!response.ok) throw new ApiError(response.status, parsed?.message ?? []);
  return parsed as T;
}

export const formatMoney = (amount: number, currency: string) =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount);

export const formatDate = (iso: string) =>
  new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(
    new Date(iso),
  );
