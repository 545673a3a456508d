export { createFacade, type FacadeOptions } from './app.ts';
export { loadFacadeEnv } from './env.ts';
export { facadeRegistry } from './metrics.ts';
export { listenFacade } from './server.ts';
export { xmlShapes } from './xml-shapes.ts';
