import { readFileSync } from 'node:fs';
import { parseAllDocuments, stringify } from 'yaml';

/**
 * One Deployment of a kustomize rendering, ready for `podman kube play` (stdin to stdout): with its
 * ConfigMaps, this run's image, one replica, no container ports (podman 4.3 publishes each on the host,
 * where replicas, neighbours and other programs would collide; probes get the numbers they named), and each
 * secretKeyRef replaced by the value given here, since podman 4.3 cannot read Secrets for secretKeyRef
 * (containers/podman#17071). Everything else (args, probes, securityContext, resources) is played as rendered.
 * The Deployment is renamed `<deployment>-<run>` (its pod `<deployment>-<run>-pod-0`), so runs side by side
 * do not collide.
 * Usage: node kube-play-spec.ts <deployment> <run> <image> <secret>/<key>=<value>...
 */
const [name, run, image, ...assignments] = process.argv.slice(2);
const secrets = new Map(assignments.map((assignment) => assignment.split(/=(.*)/s, 2) as [string, string]));

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Probe {
  httpGet?: { port: number | string };
}
interface Container {
  image: string;
  env?: EnvVar[];
  ports?: { name?: string; containerPort: number }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
}

const documents = parseAllDocuments(readFileSync(0, 'utf8')).map((document) => document.toJS());
const deployment = documents.find((object) => object.kind === 'Deployment' && object.metadata.name === name);
if (!deployment) throw new Error(`no Deployment ${name} in the rendering`);
deployment.metadata.name = `${name}-${run}`;
deployment.spec.replicas = 1;
for (const container of deployment.spec.template.spec.containers as Container[]) {
  container.image = image as string;
  const portNumbers = new Map((container.ports ?? []).map((port) => [port.name, port.containerPort]));
  for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) {
    if (typeof probe?.httpGet?.port === 'string')
      probe.httpGet.port = portNumbers.get(probe.httpGet.port) ?? 0;
  }
  delete container.ports;
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (!ref) continue;
    const value = secrets.get(`${ref.name}/${ref.key}`);
    if (value === undefined) throw new Error(`no value given for secret ${ref.name}/${ref.key}`);
    delete variable.valueFrom;
    variable.value = value;
  }
}
const configMaps = documents.filter((object) => object.kind === 'ConfigMap');
process.stdout.write([...configMaps, deployment].map((object) => stringify(object)).join('---\n'));
