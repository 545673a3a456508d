export { createFacade, type FacadeOptions } from './app.ts';
export { loadFacadeEnv } from './env.ts';
export { createLogger } from './log.ts';
export { listenFacade } from './server.ts';
export { xmlShapes } from './xml-shapes.ts';
