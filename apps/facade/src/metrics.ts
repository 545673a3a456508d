import { createRegistry, Histogram } from '@paywire/observability';

/** The facade's metrics (METRICS_PORT): one registry per process. */
export const facadeRegistry = createRegistry();

export const requestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time to answer a /services/2 request, by matched route pattern, method and status',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [facadeRegistry],
});
