export { createFacade, type FacadeOptions } from './app.ts';
export { createLogger } from './log.ts';
