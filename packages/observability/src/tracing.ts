import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

export { SpanKind, SpanStatusCode };
export type TraceContext = Context;

let enabled = false;

export interface Tracing {
  /** Sends the spans ended so far (tests; a draining process). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Exports spans over OTLP/HTTP (JSON) to OTEL_EXPORTER_OTLP_ENDPOINT, with W3C trace context. Unset, no
 * SDK is loaded and every span helper below is a direct call of the traced function.
 */
export async function startTracing(
  service: string,
  endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
): Promise<Tracing | null> {
  if (!endpoint) return null;
  const [sdk, exporter, hooks, core, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? service }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new exporter.OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` }),
      }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  enabled = true;
  return { flush: () => provider.forceFlush(), stop: () => provider.shutdown() };
}

export const tracingEnabled = (): boolean => enabled;

export interface SpanOptions {
  kind: SpanKind;
  attributes?: Attributes;
  /** The caller's context (from extractTraceContext); default: the active one. */
  parent?: Context | undefined;
}

/** Runs `work` in a span of its own (active for everything it calls), ended when it settles. */
export function inSpan<T>(
  scope: string,
  name: string,
  options: SpanOptions,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!enabled) return work(undefined);
  const { parent, ...spanOptions } = options;
  return trace
    .getTracer(scope)
    .startActiveSpan(name, spanOptions, parent ?? context.active(), async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
}

/** The trace context a request carried (traceparent), to parent the span that serves it. */
export function extractTraceContext(headers: Record<string, unknown>): Context | undefined {
  return enabled ? propagation.extract(context.active(), headers) : undefined;
}

/** Adds the active trace context (traceparent) to headers a call sends on. */
export function injectTraceContext(headers: Record<string, string>): void {
  if (enabled) propagation.inject(context.active(), headers);
}
