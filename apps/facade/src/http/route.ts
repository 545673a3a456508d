import type { default as Router, RouterContext } from '@koa/router';
import type { Operation } from '../openapi/operation.ts';

/** One route of /services/2: where it is served, and what the API description says of it. */
export interface RouteDeclaration extends Operation {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Koa's form, under the router's prefix: `/orders/:orderId`. */
  path: `/${string}`;
}

const declared = new WeakMap<object, RouteDeclaration[]>();

/**
 * Mounts a handler on the router and records its declaration, from which openapi/document.ts builds the
 * API description: each route is declared once. The handler gets its declaration, so it reads its body
 * and parameters with the contracts the description shows.
 */
export function route<State, Declaration extends RouteDeclaration>(
  router: Router<State>,
  declaration: Declaration,
  handler: (ctx: RouterContext<State>, declaration: Declaration) => Promise<void> | void,
): void {
  router.register(declaration.path, [declaration.method], (ctx) => handler(ctx, declaration));
  declared.set(router, [...declaredRoutes(router), declaration]);
}

/** The declarations of the routes mounted on `router` through `route`, in the order they were mounted. */
export const declaredRoutes = (router: object): readonly RouteDeclaration[] => declared.get(router) ?? [];
