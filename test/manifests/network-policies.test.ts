import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

/**
 * The network policies the production overlay renders, evaluated as Kubernetes does for traffic between two
 * pods of the namespace: allowed when the source's egress policies (if any select it) and the destination's
 * ingress policies (if any select it) each have a rule admitting the other on that port. Paywire's pods
 * carry their rendered templates' labels; the Pooler's and the database's are CloudNativePG's.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const namespace = 'paywire';

type Labels = Record<string, string>;
interface Selector {
  matchLabels?: Labels;
  matchExpressions?: {
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: string[];
  }[];
}
interface Peer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: unknown;
}
interface Rule {
  from?: Peer[];
  to?: Peer[];
  ports?: { protocol?: string; port: number }[];
}
interface Policy {
  spec: { podSelector: Selector; policyTypes: ('Ingress' | 'Egress')[]; ingress?: Rule[]; egress?: Rule[] };
}

function selects(selector: Selector, labels: Labels): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpression = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    const value = labels[key];
    if (operator === 'In') return value !== undefined && values.includes(value);
    if (operator === 'NotIn') return value === undefined || !values.includes(value);
    return operator === 'Exists' ? value !== undefined : value === undefined;
  });
  return byLabel && byExpression;
}

/** A peer of a rule admits a pod of this namespace: by pod selector, namespace selector, or both. */
function admits(peer: Peer, labels: Labels): boolean {
  if (peer.ipBlock) return false; // pod IPs are private: the IPN rule's public blocks admit none
  const namespaceLabels = { 'kubernetes.io/metadata.name': namespace };
  const inNamespace = peer.namespaceSelector ? selects(peer.namespaceSelector, namespaceLabels) : true;
  return inNamespace && (peer.podSelector ? selects(peer.podSelector, labels) : true);
}

function ruleAllows(rule: Rule, peers: Peer[] | undefined, other: Labels, port: number): boolean {
  const portOk = rule.ports === undefined || rule.ports.some((allowed) => allowed.port === port);
  return portOk && (peers === undefined || peers.some((peer) => admits(peer, other)));
}

function allowed(policies: Policy[], from: Labels, to: Labels, port: number): boolean {
  const direction = (type: 'Ingress' | 'Egress', pod: Labels, other: Labels) => {
    const applying = policies.filter(
      (policy) => policy.spec.policyTypes.includes(type) && selects(policy.spec.podSelector, pod),
    );
    if (applying.length === 0) return true;
    return applying.some((policy) =>
      (type === 'Ingress' ? policy.spec.ingress : policy.spec.egress)?.some((rule) =>
        ruleAllows(rule, type === 'Ingress' ? rule.from : rule.to, other, port),
      ),
    );
  };
  return direction('Egress', from, to) && direction('Ingress', to, from);
}

const kubectl = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    process.stdout.write(
      '## SKIPPED: kubectl is not installed here; the network policies are NOT checked ##\n',
    );
    return false;
  }
})();

/** The production overlay as rendered: its policies, and the labels of the pods they are about. */
function productionOverlay() {
  const objects = parseAllDocuments(
    execFileSync('kubectl', ['kustomize', `${root}/infra/k8s/overlays/production`], { encoding: 'utf8' }),
  ).map((document) => document.toJS() as { kind: string; metadata: { name: string }; spec: never });
  const templateLabels = (kind: string, name: string): Labels => {
    const object = objects.find((candidate) => candidate.kind === kind && candidate.metadata.name === name);
    const spec = object?.spec as { template?: { metadata?: { labels?: Labels } } } | undefined;
    const labels = spec?.template?.metadata?.labels;
    if (!labels) throw new Error(`${kind}/${name} has no pod template labels`);
    return labels;
  };
  const pods = {
    facade: templateLabels('Deployment', 'paywire-facade'),
    coreApi: templateLabels('Deployment', 'paywire-core-api'),
    coreWorker: templateLabels('Deployment', 'paywire-core-worker'),
    migrate: templateLabels('Job', 'paywire-migrate'),
    // CloudNativePG labels the Pooler's pods with their cluster too: a policy for the cluster's pods must not
    // take them for instances.
    pooler: {
      'cnpg.io/poolerName': 'paywire-db-pooler-rw',
      'cnpg.io/podRole': 'pooler',
      'cnpg.io/cluster': 'paywire-db',
    },
    database: {
      'cnpg.io/cluster': 'paywire-db',
      'cnpg.io/podRole': 'instance',
      'cnpg.io/instanceRole': 'primary',
    },
  };
  return {
    hasPooler: objects.some((object) => object.kind === 'Pooler'),
    policies: objects.filter((object) => object.kind === 'NetworkPolicy') as unknown as Policy[],
    pods,
  };
}

type Overlay = ReturnType<typeof productionOverlay>;
// Rendered only where kubectl is (a skipped describe still runs its body to collect its tests).
const overlay = kubectl ? productionOverlay() : undefined;

describe.skipIf(!overlay)('the production overlay’s network policies', () => {
  it('lets core reach PostgreSQL through the Pooler, migrate reach it directly, and the replicas each other', () => {
    const { hasPooler, policies, pods } = overlay as Overlay;
    expect(hasPooler).toBe(true);
    expect(allowed(policies, pods.coreApi, pods.pooler, 5432)).toBe(true);
    expect(allowed(policies, pods.coreWorker, pods.pooler, 5432)).toBe(true);
    expect(allowed(policies, pods.pooler, pods.database, 5432)).toBe(true);
    expect(allowed(policies, pods.migrate, pods.database, 5432)).toBe(true);
    expect(allowed(policies, pods.database, pods.database, 5432)).toBe(true);
  });

  it('keeps the facade away from the Pooler and the database, and migrate away from the Pooler', () => {
    const { policies, pods } = overlay as Overlay;
    expect(allowed(policies, pods.facade, pods.pooler, 5432)).toBe(false);
    expect(allowed(policies, pods.facade, pods.database, 5432)).toBe(false);
    expect(allowed(policies, pods.migrate, pods.pooler, 5432)).toBe(false);
    // The facade still reaches core api, which the policies otherwise close.
    expect(allowed(policies, pods.facade, pods.coreApi, 8081)).toBe(true);
    expect(allowed(policies, pods.facade, pods.coreWorker, 8081)).toBe(false);
  });
});
