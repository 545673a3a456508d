export type { Acquirer } from './cards/acquirer.ts';
export { sandboxAcquirer } from './cards/sandbox-acquirer.ts';
export { migrate, openDatabase } from './db/orm.ts';
export { upsertMerchant } from './merchants/service.ts';
export { type AppRouter, appRouter, createCaller } from './router.ts';
export { type CoreOptions, merchantHeader, type RunningCore, startCore } from './server.ts';
