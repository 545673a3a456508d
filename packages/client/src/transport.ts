import http from 'node:http';

interface RequestInit {
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal | null;
}

/**
 * What the tRPC link needs of fetch (it reads only `json()`), over node:http with pooled keep-alive
 * sockets. Node's global fetch costs several times the CPU per call, and every request of the facade
 * makes one such call to core.
 */
export function keepAliveFetch(maxSockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets, keepAliveMsecs: 30_000 });
  return (url: string | URL, init: RequestInit = {}) =>
    new Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>((resolve, reject) => {
      const request = http.request(
        url,
        { agent, method: init.method ?? 'GET', headers: init.headers, signal: init.signal ?? undefined },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ ok: status >= 200 && status < 300, status, json: async () => JSON.parse(text) });
          });
        },
      );
      request.on('error', reject);
      request.end(init.body);
    });
}
