import { accountUpdaterRouter } from './account-updater/router.ts';
import { callersRouter } from './callers/router.ts';
import { cardsRouter } from './cards/router.ts';
import { catalogRouter } from './catalog/router.ts';
import { chargebacksRouter } from './chargebacks/router.ts';
import { clockRouter } from './clock/router.ts';
import { consoleRouter } from './console/router.ts';
import { fraudRouter } from './fraud/router.ts';
import { ipnRouter } from './ipn/router.ts';
import { keysRouter } from './keys/router.ts';
import { marketplaceRouter } from './marketplace/router.ts';
import { merchantsRouter } from './merchants/router.ts';
import { ordersRouter } from './orders/router.ts';
import { partnersRouter } from './partners/router.ts';
import { processorsRouter } from './processors/accounts/router.ts';
import { adyenRouter } from './processors/adyen/router.ts';
import { recurringRouter } from './recurring/router.ts';
import { refundsRouter } from './refunds/router.ts';
import { reportsRouter } from './reports/router.ts';
import { auditRouter } from './security/audit/router.ts';
import { sepaRouter } from './sepa/router.ts';
import { shoppersRouter } from './shoppers/router.ts';
import { tokensRouter } from './tokens/router.ts';
import { createCallerFactory, router } from './trpc.ts';
import { walletsRouter } from './wallets/router.ts';

export const appRouter = router({
  cards: cardsRouter,
  shoppers: shoppersRouter,
  tokens: tokensRouter,
  clock: clockRouter,
  merchants: merchantsRouter,
  ipn: ipnRouter,
  sepa: sepaRouter,
  refunds: refundsRouter,
  catalog: catalogRouter,
  orders: ordersRouter,
  partners: partnersRouter,
  callers: callersRouter,
  reports: reportsRouter,
  recurring: recurringRouter,
  adyen: adyenRouter,
  processors: processorsRouter,
  audit: auditRouter,
  wallets: walletsRouter,
  accountUpdater: accountUpdaterRouter,
  keys: keysRouter,
  chargebacks: chargebacksRouter,
  fraud: fraudRouter,
  marketplace: marketplaceRouter,
  console: consoleRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
