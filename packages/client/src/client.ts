import { AsyncLocalStorage } from 'node:async_hooks';
import { internalHeaders } from '@paywire/contracts';
// Types only: erased at run time, so a service using this client never loads core's source.
import type { AppRouter } from '@paywire/core';
import { createTRPCClient, httpLink, localLink, type TRPCLink } from '@trpc/client';
import type { inferRouterContext, inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { observable } from '@trpc/server/observable';
import { keepAliveFetch } from './transport.ts';

export type { AppRouter };
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

/** What one call carries besides its input. */
export interface PaywireCallOptions {
  /** The merchant to act for: honoured for an any-merchant credential (the facade's) only. */
  merchantId?: number;
  /** A mutation with a key runs once per key and merchant; a retry gets the first answer. */
  idempotencyKey?: string;
  /** With the key: a digest of what the caller asked, so the same key with another request is refused. */
  fingerprint?: string;
  /** The id of the request this call serves (the facade's X-Request-Id): in core's log lines for the call. */
  requestId?: string;
  /** The merchant's client address, when the call acts on a merchant's own login (the facade's). */
  clientAddress?: string;
}

declare module '@trpc/client' {
  interface OperationContext {
    paywire?: PaywireCallOptions;
  }
}

/** Per-call options: `client.cards.get.query(input, callOptions({ merchantId: 42 }))`. */
export function callOptions(options: PaywireCallOptions): { context: { paywire: PaywireCallOptions } } {
  return { context: { paywire: options } };
}

/** Only what is set: a header with an undefined value would travel as the text "undefined". */
function headersFor(authorization: string, options: PaywireCallOptions = {}): Record<string, string> {
  const headers: Record<string, string> = { [internalHeaders.authorization]: authorization };
  if (options.merchantId !== undefined) headers[internalHeaders.merchant] = String(options.merchantId);
  if (options.requestId !== undefined) headers[internalHeaders.requestId] = options.requestId;
  if (options.clientAddress !== undefined) headers[internalHeaders.clientAddress] = options.clientAddress;
  if (options.idempotencyKey !== undefined) {
    headers[internalHeaders.idempotencyKey] = options.idempotencyKey;
    if (options.fingerprint !== undefined) headers[internalHeaders.fingerprint] = options.fingerprint;
  }
  return headers;
}

/**
 * A call answers once: a value or an error. tRPC's client resolves its promise on the value, then, on the
 * completion that follows, aborts a controller of its own, which builds a DOMException with a stack: a
 * percent or two of a process's CPU per call, for nothing. So completion after the answer is not passed on;
 * the client unsubscribes on the value anyway.
 */
function answerOnce(): TRPCLink<AppRouter> {
  return () =>
    ({ op, next }) =>
      observable((observer) => {
        let answered = false;
        const subscription = next(op).subscribe({
          next(value) {
            answered = true;
            observer.next(value);
          },
          error: (error) => observer.error(error),
          complete() {
            if (!answered) observer.complete();
          },
        });
        return () => subscription.unsubscribe();
      });
}

export interface PaywireClientOptions {
  /** Core's tRPC endpoint, e.g. http://127.0.0.1:8081/trpc */
  url: string;
  /** The caller's credential as issued: `pwc_<id>_<secret>`. */
  credential: string;
  /** Pooled keep-alive sockets to core (default 64). */
  maxSockets?: number;
}

/**
 * A typed client of core. httpLink, not the batch link: a batch carries one header set, and calls for
 * different merchants must never share one. Connections are pooled and kept alive.
 */
export function createPaywireClient({ url, credential, maxSockets = 64 }: PaywireClientOptions) {
  const authorization = `Bearer ${credential}`;
  return createTRPCClient<AppRouter>({
    links: [
      answerOnce(),
      httpLink({
        url,
        fetch: keepAliveFetch(maxSockets) as unknown as typeof fetch,
        headers: ({ op }) => headersFor(authorization, op.context.paywire),
      }),
    ],
  });
}

export type PaywireClient = ReturnType<typeof createPaywireClient>;

export interface LocalPaywireClientOptions {
  /** Core's router, handed over by whoever started core in this process (types alone are imported here). */
  router: AppRouter;
  /** Core's context for a call with these headers (RunningCore.localContext), authenticated as over HTTP. */
  localContext: (headers: Record<string, string>) => Promise<inferRouterContext<AppRouter>>;
  credential: string;
}

/**
 * A client of a core running in this process (the single-process mode): the same calls, with the same
 * credential, merchant and key checks, through tRPC's local link instead of HTTP. The local link asks for a
 * context with no view of the call, so each call's headers travel to it in async-local storage.
 */
export function createLocalPaywireClient({ router, localContext, credential }: LocalPaywireClientOptions) {
  const authorization = `Bearer ${credential}`;
  const headersOfCall = new AsyncLocalStorage<Record<string, string>>();
  const withHeaders: TRPCLink<AppRouter> =
    () =>
    ({ op, next }) =>
      observable((observer) => {
        const subscription = headersOfCall.run(headersFor(authorization, op.context.paywire), () =>
          next(op).subscribe(observer),
        );
        return () => subscription.unsubscribe();
      });
  return createTRPCClient<AppRouter>({
    links: [
      answerOnce(),
      withHeaders,
      localLink({
        router,
        createContext: () => {
          const headers = headersOfCall.getStore();
          if (!headers) throw new Error('a local call without its headers');
          return localContext(headers);
        },
      }),
    ],
  });
}
