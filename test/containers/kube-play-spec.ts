import { readFileSync } from 'node:fs';
import { parseAllDocuments, stringify } from 'yaml';

/**
 * One Deployment of a kustomize rendering, ready for `podman kube play` (stdin to stdout): with its
 * ConfigMaps, this run's image, one replica (podman 4.3 publishes container ports on the host, so replicas
 * and neighbours would collide), and each secretKeyRef replaced by the value given here, since podman 4.3
 * cannot read Secrets for secretKeyRef (containers/podman#17071). Everything else (args, ports, probes,
 * securityContext, resources) is played as rendered.
 * Usage: node kube-play-spec.ts <deployment> <image> <secret>/<key>=<value>...
 */
const [name, image, ...assignments] = process.argv.slice(2);
const secrets = new Map(assignments.map((assignment) => assignment.split(/=(.*)/s, 2) as [string, string]));

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  image: string;
  env?: EnvVar[];
}

const documents = parseAllDocuments(readFileSync(0, 'utf8')).map((document) => document.toJS());
const deployment = documents.find((object) => object.kind === 'Deployment' && object.metadata.name === name);
if (!deployment) throw new Error(`no Deployment ${name} in the rendering`);
deployment.spec.replicas = 1;
for (const container of deployment.spec.template.spec.containers as Container[]) {
  container.image = image as string;
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
