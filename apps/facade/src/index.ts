export { createFacade, type FacadeOptions } from './app.ts';
export { type FacadeEnv, loadFacadeEnv } from './env.ts';
export { facadeRegistry } from './metrics.ts';
export { serveFacade } from './serve.ts';
export { listenFacade } from './server.ts';
export { xmlShapes } from './xml-shapes.ts';
