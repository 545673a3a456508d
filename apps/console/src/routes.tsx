import { createRootRoute, createRoute, createRouter, Link, Outlet } from '@tanstack/react-router';
import { Button } from 'react-aria-components';
import { Chargebacks } from './pages/chargebacks.tsx';
import { DashboardPage } from './pages/dashboard.tsx';
import { Deliveries } from './pages/deliveries.tsx';
import { IpnSettings } from './pages/ipn-settings.tsx';
import { Reports } from './pages/reports.tsx';
import { SubscriptionDetail, Subscriptions } from './pages/subscriptions.tsx';
import { TransactionDetail } from './pages/transaction-detail.tsx';
import { parseSearch, Transactions } from './pages/transactions.tsx';
import { SignIn, useSession, useSignOut } from './session.tsx';

const pages = [
  { to: '/', label: 'Dashboard' },
  { to: '/transactions', label: 'Transactions' },
  { to: '/subscriptions', label: 'Subscriptions' },
  { to: '/chargebacks', label: 'Chargebacks' },
  { to: '/ipn/deliveries', label: 'IPN deliveries' },
  { to: '/ipn/settings', label: 'IPN settings' },
  { to: '/reports', label: 'Reports' },
] as const;

function Shell() {
  const session = useSession();
  const signOut = useSignOut();
  if (session.isPending) return <p role="status">Loading…</p>;
  if (session.isError) return <p role="alert">Paywire is unreachable: {session.error.message}</p>;
  if (!session.data) return <SignIn ended={sessionStorage.getItem('paywire-console-ended') === 'yes'} />;
  sessionStorage.removeItem('paywire-console-ended');
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="bar">
        <span className="brand">Paywire</span>
        <nav aria-label="Console">
          <ul>
            {pages.map((page) => (
              <li key={page.to}>
                <Link
                  to={page.to}
                  activeOptions={{ exact: page.to === '/' }}
                  activeProps={{ 'aria-current': 'page' }}
                >
                  {page.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who">{session.data.username}</span>
        <Button onPress={() => signOut.mutate()}>Sign out</Button>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}

const rootRoute = createRootRoute({ component: Shell });
const routeTree = rootRoute.addChildren([
  createRoute({ getParentRoute: () => rootRoute, path: '/', component: DashboardPage }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/transactions',
    validateSearch: parseSearch,
    component: Transactions,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/transactions/$transactionId',
    component: TransactionDetail,
  }),
  createRoute({ getParentRoute: () => rootRoute, path: '/subscriptions', component: Subscriptions }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/subscriptions/$subscriptionId',
    component: SubscriptionDetail,
  }),
  createRoute({ getParentRoute: () => rootRoute, path: '/chargebacks', component: Chargebacks }),
  createRoute({ getParentRoute: () => rootRoute, path: '/ipn/deliveries', component: Deliveries }),
  createRoute({ getParentRoute: () => rootRoute, path: '/ipn/settings', component: IpnSettings }),
  createRoute({ getParentRoute: () => rootRoute, path: '/reports', component: Reports }),
]);

export const router = createRouter({ routeTree, basepath: '/console' });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
