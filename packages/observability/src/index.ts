export { Counter, Gauge, Histogram, type Registry } from 'prom-client';
export { childOnFirstLine, createLogger, type Logger } from './log.ts';
export { createRegistry, type MetricsServer, serveMetrics } from './metrics.ts';
export { redactText } from './redact.ts';
export { newRequestId, requestIdHeader, validRequestId } from './request-id.ts';
export {
  extractTraceContext,
  injectTraceContext,
  inSpan,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  startTracing,
  type TraceContext,
  type Tracing,
  tracingEnabled,
} from './tracing.ts';
