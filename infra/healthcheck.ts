/**
 * The image's HEALTHCHECK: healthy when this container's process answers GET /healthz, on PORT (facade) or
 * CORE_PORT (core). Each container runs one of them, so whichever answers is the one. Kubernetes ignores this
 * and uses the manifests' probes.
 */
const { PORT = '8080', CORE_PORT = '8081' } = process.env;
const ports = [PORT, CORE_PORT];

async function answersHealthy(port: string): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  } catch {
    return false;
  }
}

const healthy = await Promise.all(ports.map(answersHealthy));
process.exit(healthy.includes(true) ? 0 : 1);
