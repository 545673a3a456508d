import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/**
 * The Kubernetes manifests proven without a cluster: every kustomization under infra/k8s renders
 * (`kubectl kustomize`), and every object it renders is checked against its kind's schema, Kubernetes' own
 * (kubernetes-models) or CloudNativePG's CRD (@kubernetes-models/cloudnative-pg), two ways:
 * - typed: each object becomes a literal of its kind's interface and tsc checks it, refusing unknown
 *   fields (excess property checks) and wrong types at any depth;
 * - validated: the schema's JSON-schema validator refuses missing required fields, bad enums and formats.
 * A kind with no schema fails. Canaries, objects each broken one way, must be refused by the check that
 * owns that way, so a checker that stopped checking fails too. Run: node test/manifests/check.ts
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const kustomizations = ['infra/k8s/base', 'infra/k8s/overlays/sandbox', 'infra/k8s/overlays/production'];

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [field: string]: unknown;
}
type Check = 'typed' | 'validated';
interface Subject {
  label: string;
  object: KubeObject;
  /** Canaries only: the check that must refuse it. */
  refusedBy?: Check;
}

/** The module holding a kind's model: Kubernetes' groups in kubernetes-models, CloudNativePG's in its own. */
function modelModule({ apiVersion, kind }: KubeObject): string {
  if (apiVersion.startsWith('postgresql.cnpg.io/'))
    return `@kubernetes-models/cloudnative-pg/${apiVersion}/${kind}`;
  return `kubernetes-models/${apiVersion}/${kind}`;
}

/** kustomize renders through kubectl; a machine without it cannot prove the manifests, and says so loudly. */
try {
  execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
} catch {
  process.stdout.write(
    '## SKIPPED: kubectl is not installed here; the Kubernetes manifests are NOT proven ##\n',
  );
  process.exit(0);
}

const subjects: Subject[] = [];
for (const kustomization of kustomizations) {
  const yaml = execFileSync('kubectl', ['kustomize', path.join(root, kustomization)], { encoding: 'utf8' });
  for (const document of parseAllDocuments(yaml)) {
    const object = document.toJS() as KubeObject;
    subjects.push({ label: `${kustomization}: ${object.kind}/${object.metadata.name}`, object });
  }
}
const rendered = subjects.length;

const container = { name: 'c', image: 'paywire' };
const podTemplate = { metadata: { labels: { a: 'b' } }, spec: { containers: [container] } };
const deployment = (spec: object): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'canary' },
  spec,
});
const cluster = (spec: object): KubeObject => ({
  apiVersion: 'postgresql.cnpg.io/v1',
  kind: 'Cluster',
  metadata: { name: 'canary' },
  spec,
});
subjects.push(
  {
    label: 'canary: unknown container field',
    refusedBy: 'typed',
    object: deployment({
      selector: { matchLabels: { a: 'b' } },
      template: { ...podTemplate, spec: { containers: [{ ...container, imagePullPolice: 'Always' }] } },
    }),
  },
  {
    label: 'canary: Deployment without selector',
    refusedBy: 'validated',
    object: deployment({ template: podTemplate }),
  },
  {
    label: 'canary: unknown Cluster field',
    refusedBy: 'typed',
    object: cluster({ instances: 1, storage: { size: '1Gi' }, replicas: 3 }),
  },
  {
    label: 'canary: Cluster instances as text',
    refusedBy: 'validated',
    object: cluster({ instances: 'three' }),
  },
);

const refusals = new Map<Subject, Set<Check>>(subjects.map((subject) => [subject, new Set()]));
const reasons: string[] = [];
function refuse(subject: Subject, check: Check, reason: string): void {
  refusals.get(subject)?.add(check);
  reasons.push(`${subject.label} (${check}): ${reason}`);
}

for (const subject of subjects) {
  try {
    const model = (await import(modelModule(subject.object)))[subject.object.kind];
    new model(subject.object).validate();
  } catch (error) {
    refuse(subject, 'validated', error instanceof Error ? error.message : String(error));
  }
}

// Typed: one generated file per object beside the models (so they resolve), all checked by one tsc run.
const generated = path.join(root, 'node_modules/.cache/paywire-manifests');
rmSync(generated, { recursive: true, force: true });
mkdirSync(generated, { recursive: true });
const files = subjects.map((subject, index) => {
  const file = `object-${index}.ts`;
  const type = `import('${modelModule(subject.object)}').I${subject.object.kind}`;
  writeFileSync(
    path.join(generated, file),
    `// ${subject.label}\nexport const object: ${type} = ${JSON.stringify(subject.object, null, 2)};\n`,
  );
  return file;
});
let tscOutput = '';
try {
  execFileSync(
    path.join(root, 'node_modules/.bin/tsc'),
    ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--target', 'es2022', ...files],
    { cwd: generated, encoding: 'utf8' },
  );
} catch (error) {
  tscOutput = (error as { stdout?: string }).stdout ?? String(error);
}
for (const line of tscOutput.split('\n')) {
  const index = /^object-(\d+)\.ts/.exec(line)?.[1];
  const subject = index === undefined ? undefined : subjects[Number(index)];
  if (subject) refuse(subject, 'typed', line);
  else if (line.trim() !== '') reasons.push(`tsc: ${line}`);
}

const wrong: string[] = [];
for (const [subject, checks] of refusals) {
  if (subject.refusedBy === undefined && checks.size > 0) wrong.push(`refused: ${subject.label}`);
  if (subject.refusedBy !== undefined && !checks.has(subject.refusedBy))
    wrong.push(`not refused by the ${subject.refusedBy} check: ${subject.label}`);
}
if (wrong.length > 0) {
  console.error(`FAIL\n${wrong.join('\n')}\n\nreasons:\n${reasons.join('\n')}`);
  process.exit(1);
}
console.log(
  `PASS: ${rendered} objects from ${kustomizations.length} kustomizations typed and validated; ` +
    `${subjects.length - rendered} canaries refused`,
);
