import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { coreReadiness } from './health.ts';

/** A core stand-in on 127.0.0.1 that gives the listed /readyz answers in turn, then repeats the last. */
async function coreAnswering(...answers: Array<'ready' | 'draining' | 'database unreachable'>) {
  let asked = 0;
  const server = createServer((_request, response) => {
    const answer = answers[Math.min(asked++, answers.length - 1)];
    const body = answer === 'ready' ? { status: 'ready' } : { status: 'not ready', reason: answer };
    // As core's drain does: a draining replica closes the connection after its answer.
    if (answer === 'draining') response.setHeader('connection', 'close');
    response.writeHead(answer === 'ready' ? 200 : 503, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/trpc`, asked: () => asked };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Past the one-second cache, so the next probe asks core again. */
const afterCache = () => new Promise((resolve) => setTimeout(resolve, 1100));

describe("the facade's readiness in front of core", () => {
  it('stays ready when the core replica it reached is draining and the next one is ready', async () => {
    const core = await coreAnswering('ready', 'draining', 'ready');
    const readiness = coreReadiness(core.url, () => false);
    expect(await readiness()).toEqual({ ready: true });
    await afterCache();
    expect(await readiness()).toEqual({ ready: true });
    expect(core.asked()).toBe(3);
  });

  it('keeps its last verdict while every answer is draining, and follows a real failure', async () => {
    const core = await coreAnswering('ready', 'draining', 'draining', 'database unreachable');
    const readiness = coreReadiness(core.url, () => false);
    expect(await readiness()).toEqual({ ready: true });
    await afterCache();
    expect(await readiness()).toEqual({ ready: true });
    await afterCache();
    expect(await readiness()).toEqual({ ready: false, reason: 'core not ready or unreachable' });
  });

  it('is not ready while draining itself, nor before core first answers ready', async () => {
    const core = await coreAnswering('draining');
    expect(await coreReadiness(core.url, () => true)()).toEqual({ ready: false, reason: 'draining' });
    expect(await coreReadiness(core.url, () => false)()).toEqual({
      ready: false,
      reason: 'core not ready or unreachable',
    });
  });
});
