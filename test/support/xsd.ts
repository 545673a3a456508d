import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

/**
 * Validates the XML documents Paywire writes against the original's published XSDs (see
 * docs/xml-schemas.md). The schemas carry no licence, so they are not copied into this repository:
 * they are read from the original's repository at the pinned commit below, either from a local clone
 * named by PAYWIRE_XSD_REPO or fetched from GitHub, into node_modules/.cache (never committed).
 * Validation is xmllint's (Debian's libxml2-utils, installed when missing). When either cannot be had
 * the validation is skipped, loudly, once per test file.
 */

/**
 * bluesnap/api-resources: "3.21.3 release", the last commit holding schemas/2.3.12 (the Payment API
 * roots: card-transaction, vaulted-shopper, recurring-subscription, refund, alt-transaction), then
 * "changes up to 3.52.2", whose schemas/XSDs are the newest published types those roots include
 * (processing-info, credit-card, three-d-secure ...) and roots (plan, messages, order ...). The second
 * is laid over the first, as the original's own later releases replaced those files.
 */
const SCHEMA_LAYERS = [
  { commit: '59bf07fa26f2cf8668ae800172b4fe0c660c5e95', folder: 'schemas/2.3.12' },
  { commit: '3b147dbde462df41607f8f044a549a18786a609f', folder: 'schemas/XSDs' },
] as const;
const SCHEMA_REPOSITORY = 'https://github.com/bluesnap/api-resources';

/**
 * Root element -> the schema file that declares it: the roots whose answers Paywire writes in schema order.
 * The others are listed in docs/xml-schemas.md (no published schema, or not yet ordered).
 */
export const schemaOfRoot: Readonly<Record<string, string>> = {
  'card-transaction': 'transaction.xsd',
  refund: 'refund.xsd',
  'vaulted-shopper': 'vaulted-shopper.xsd',
  messages: 'messages.xsd',
  plan: 'plan.xsd',
  plans: 'plans.xsd',
  'recurring-subscription': 'recurring-subscription.xsd',
  'recurring-subscriptions': 'recurring-subscriptions.xsd',
  charge: 'recurring-subscription.xsd',
  charges: 'recurring-subscription.xsd',
  'alt-transaction': 'alternative-transaction.xsd',
  price: 'price.xsd', // the switch charge amount
  vendor: 'vendor.xsd',
  vendors: 'vendor.xsd',
  'batch-account-update': 'batch-account-update.xsd',
  'cp-user-info': 'cp-user.xsd',
  wallet: 'wallet.xsd',
  order: 'order.xsd',
  shopper: 'shopper.xsd',
  'batch-order': 'batch-order.xsd',
  'custom-parameter': 'custom-parameter.xsd',
  product: 'product.xsd',
  'catalog-sku': 'catalog-sku.xsd',
};

/**
 * Where the reference (the interface and its JSON, which win) departs from the published schemas, the
 * schema copy is amended, each amendment an exact edit of one file that must apply. Each is listed, with
 * its reason, in docs/xml-schemas.md.
 */
export const amendments: ReadonlyArray<{ file: string; find: string; replace: string }> = [
  // The reference's JSON added threeDSecure and level3Data after 2.3.12: written last, in the types
  // the original published later (three-d-secure.xsd, level-3-data.xsd).
  {
    file: 'transaction.xsd',
    find: '<xs:element ref="refunds" minOccurs="0" maxOccurs="1" />',
    replace:
      '<xs:element ref="refunds" minOccurs="0" maxOccurs="1" />' +
      '<xs:element ref="three-d-secure" minOccurs="0"/><xs:element ref="level-3-data" minOccurs="0"/>',
  },
  {
    file: 'transaction.xsd',
    find: '<xs:include schemaLocation="wallet.xsd"/>',
    replace:
      '<xs:include schemaLocation="wallet.xsd"/><xs:include schemaLocation="three-d-secure.xsd"/>' +
      '<xs:include schemaLocation="level-3-data.xsd"/>',
  },
  // The original always has a descriptor (the merchant's default); Paywire has none unless the sale sent one.
  {
    file: 'transaction.xsd',
    find: '<xs:element ref="soft-descriptor" minOccurs="1" maxOccurs="1"/>',
    replace: '<xs:element ref="soft-descriptor" minOccurs="0" maxOccurs="1"/>',
  },
  // The reference's subscription added descriptorPhoneNumber: written last (the first sequence of the file
  // is recurring-subscription's).
  {
    file: 'recurring-subscription.xsd',
    find: '</xs:sequence>',
    replace:
      '<xs:element name="descriptor-phone-number" form="qualified" type="xs:string" minOccurs="0"/></xs:sequence>',
  },
  // A split debit's and a subscription's vendors as a card sale's (transaction.xsd below): the reference's
  // vendorsInfo after 2.3.12's one vendor-info.
  {
    file: 'alternative-transaction.xsd',
    find: '<xs:element ref="vendor-info" minOccurs="0" maxOccurs="1"/>',
    replace:
      '<xs:element ref="vendor-info" minOccurs="0" maxOccurs="1"/><xs:element ref="vendors-info" minOccurs="0"/>',
  },
  {
    file: 'recurring-subscription.xsd',
    find: '<xs:element ref="vendor-info" minOccurs="0" maxOccurs="1" />',
    replace:
      '<xs:element ref="vendor-info" minOccurs="0" maxOccurs="1" /><xs:element ref="vendors-info" minOccurs="0"/>',
  },
  // SEPA direct debit is the reference's JSON, after 2.3.12: its elements sit where ECP's do, and their
  // content is not checked (no published schema has the shapes the reference answers).
  {
    file: 'alternative-transaction.xsd',
    find: '<xs:element ref="ecp-transaction" minOccurs="0" maxOccurs="1" />',
    replace:
      '<xs:element ref="ecp-transaction" minOccurs="0" maxOccurs="1" />' +
      '<xs:element name="sepa-direct-debit-transaction" form="qualified" type="xs:anyType" minOccurs="0"/>',
  },
  {
    file: 'vaulted-shopper.xsd',
    find: '<xs:element ref="ecp-info" minOccurs="0" maxOccurs="1" />',
    replace:
      '<xs:element ref="ecp-info" minOccurs="0" maxOccurs="1" />' +
      '<xs:element name="sepa-direct-debit-info" form="qualified" type="xs:anyType" minOccurs="0" maxOccurs="unbounded"/>',
  },
  // A subscription's SEPA source is the reference's JSON, after 2.3.12: sepa-direct-debit-info after the
  // schema's payment-source elements, its sepa-direct-debit checked as a vaulted shopper's is.
  {
    file: 'recurring-subscription.xsd',
    find: '<xs:element ref="pf-token" minOccurs="0" maxOccurs="1" />',
    replace:
      '<xs:element ref="pf-token" minOccurs="0" maxOccurs="1" />' +
      '<xs:element name="sepa-direct-debit-info" form="qualified" type="xs:anyType" minOccurs="0"/>',
  },
  // 3.52.2 made a metadata entry's is-visible required; 2.3.12 had none and the reference's metaData
  // leaves it optional.
  {
    file: 'transaction-meta-data.xsd',
    find: '<xs:element ref="is-visible" />',
    replace: '<xs:element ref="is-visible" minOccurs="0"/>',
  },
  // A stored SEPA account is shown by its IBAN's first and last four characters, never the IBAN.
  {
    file: 'sepa-direct-debit-info.xsd',
    find: '<xs:element ref="iban" />',
    replace: '<xs:element ref="iban" minOccurs="0"/>',
  },
  {
    file: 'sepa-direct-debit-info.xsd',
    find: '<xs:element ref="bic" />',
    replace: '<xs:element ref="bic" minOccurs="0"/>',
  },
  // A vaulted shopper's stored account has no pre-notification: that text belongs to a debit.
  {
    file: 'sepa-direct-debit-info.xsd',
    find: '<xs:element ref="pre-notification-text" />',
    replace: '<xs:element ref="pre-notification-text" minOccurs="0"/>',
  },
  {
    file: 'sepa-direct-debit-info.xsd',
    find: '<xs:element ref="pre-notification-translation-ref" />',
    replace: '<xs:element ref="pre-notification-translation-ref" minOccurs="0"/>',
  },
  // wallet.xsd requires at least one domain and one unregister-domain in every apple-pay; the reference
  // answers the registered domains alone, and none once all are unregistered.
  {
    file: 'wallet.xsd',
    find: '<xs:element ref="domain" maxOccurs="unbounded">',
    replace: '<xs:element ref="domain" minOccurs="0" maxOccurs="unbounded">',
  },
  {
    file: 'wallet.xsd',
    find: '<xs:element ref="unregister-domain" maxOccurs="unbounded">',
    replace: '<xs:element ref="unregister-domain" minOccurs="0" maxOccurs="unbounded">',
  },
  // A vaulted card's processing-info is the original's verification result; Paywire vaults a card without
  // a verification call, so there is none to show.
  {
    file: 'credit-card-info.xsd',
    find: '<xs:element ref="processing-info"/>',
    replace: '<xs:element ref="processing-info" minOccurs="0"/>',
  },
  // The refund answer of POST /transactions/refund/{id} post-dates refund.xsd, whose refund is an entry of a
  // card transaction's refunds: its own fields around the schema's amount, currency and date.
  {
    file: 'refund.xsd',
    find: '<xs:element ref="amount"/>',
    replace:
      '<xs:element name="refund-transaction-id" form="qualified" type="xs:string" minOccurs="0"/><xs:element ref="amount"/>',
  },
  {
    file: 'refund.xsd',
    find: '<xs:element ref="date"/>',
    replace:
      '<xs:element ref="date"/><xs:element ref="tax-amount" minOccurs="0"/>' +
      '<xs:element name="reason" form="qualified" type="xs:string" minOccurs="0"/>' +
      '<xs:element name="cancel-subscriptions" form="qualified" type="xs:boolean" minOccurs="0"/>' +
      '<xs:element ref="transaction-meta-data" minOccurs="0"/>' +
      '<xs:element name="refund-status" form="qualified" type="xs:string" minOccurs="0"/>' +
      // each vendor's part of a refund of a split transaction (the reference's JSON; no published type)
      '<xs:element name="vendors-refund-info" form="qualified" type="xs:anyType" minOccurs="0"/>',
  },
  {
    file: 'refund.xsd',
    find: '<xs:include schemaLocation="price.xsd" />',
    replace:
      '<xs:include schemaLocation="price.xsd" /><xs:include schemaLocation="transaction-meta-data.xsd"/>',
  },
  // The reference's JSON splits a sale between several vendors (vendorsInfo); 2.3.12's card-transaction has
  // one vendor-info. Paywire writes vendors-info after it, without the processing status it has none of.
  {
    file: 'transaction.xsd',
    find: '<xs:element ref="vendor-info" minOccurs="0" maxOccurs="1"/>',
    replace:
      '<xs:element ref="vendor-info" minOccurs="0" maxOccurs="1"/><xs:element ref="vendors-info" minOccurs="0"/>',
  },
  {
    file: 'vendor-info.xsd',
    find: '<xs:element ref="vendors-info-processing-status" minOccurs="1" maxOccurs="1"/>',
    replace: '<xs:element ref="vendors-info-processing-status" minOccurs="0" maxOccurs="1"/>',
  },
  // The reference creates a vendor from its email and country alone (it may sell before it can be paid out):
  // its principal and payout method come later.
  {
    file: 'vendor.xsd',
    find: '<xs:element ref="vendor-principal" minOccurs="1"',
    replace: '<xs:element ref="vendor-principal" minOccurs="0"',
  },
  {
    file: 'vendor.xsd',
    find: '<xs:element ref="payout-info" minOccurs="1" maxOccurs="unbounded"/>',
    replace: '<xs:element ref="payout-info" minOccurs="0" maxOccurs="unbounded"/>',
  },
  // An ECP account is answered by its type and masked numbers (the reference's publicAccountNumber and
  // publicRoutingNumber), never by its numbers (docs/ach.md): in an alt-transaction, where 2.3.12's
  // ecp-transaction has the numbers only, and in a vaulted shopper's ecp-info, which Paywire writes without
  // the billing contact and status it does not keep for an account.
  {
    file: 'ecp-transaction.xsd',
    find: '<xs:element ref="account-number" />\n\t\t\t\t<xs:element ref="routing-number" />',
    replace:
      '<xs:element ref="account-number" minOccurs="0"/><xs:element ref="routing-number" minOccurs="0"/>',
  },
  {
    file: 'ecp-transaction.xsd',
    find: '<xs:element ref="account-type" />',
    replace:
      '<xs:element ref="account-type" /><xs:element ref="public-account-number" minOccurs="0"/>' +
      '<xs:element ref="public-routing-number" minOccurs="0"/>',
  },
  {
    file: 'ecp-info.xsd',
    find: '<xs:element ref="billing-contact-info" />\n\t\t\t\t<xs:element ref="ecp" />\n\t\t\t\t<xs:element ref="status" />',
    replace:
      '<xs:element ref="billing-contact-info" minOccurs="0"/><xs:element ref="ecp" />' +
      '<xs:element ref="status" minOccurs="0"/>',
  },
  {
    file: 'ecp-info.xsd',
    find: '<xs:element ref="account-number" />\n\t\t\t\t<xs:element ref="routing-number" />',
    replace:
      '<xs:element ref="account-number" minOccurs="0"/><xs:element ref="routing-number" minOccurs="0"/>',
  },
  // A card is answered before the network has (Create Account Updater's answer, a card refused as received):
  // it has no updated card yet.
  {
    file: 'account-update.xsd',
    find: '<xs:element ref="updated-card" minOccurs="1" maxOccurs="1"/>',
    replace: '<xs:element ref="updated-card" minOccurs="0" maxOccurs="1"/>',
  },
  // An invoice's financial transaction shows the payment method that paid it, not an element for every
  // method: 3.52.2 requires each (card, wallet, ECP, SEPA, BECS, ACSS) and the authorization code, which only a
  // card payment has; the reference's batch order answer shows the SEPA debit alone.
  {
    file: 'order.xsd',
    find:
      '<xs:element ref="credit-card"/>\n                <xs:element ref="wallet"/>\n' +
      '                <xs:element ref="paypal-transaction-data" minOccurs="0" />\n' +
      '                <xs:element ref="ecp"/>\n                <xs:element ref="sepa-direct-debit"/>\n' +
      '                <xs:element ref="becs-direct-debit"/>\n                <xs:element ref="acss-direct-debit"/>\n' +
      '                <xs:element ref="invoice-contact-info"/>\n                <xs:element ref="authorization-code"/>',
    replace:
      '<xs:element ref="credit-card" minOccurs="0"/><xs:element ref="wallet" minOccurs="0"/>' +
      '<xs:element ref="paypal-transaction-data" minOccurs="0"/><xs:element ref="ecp" minOccurs="0"/>' +
      '<xs:element ref="sepa-direct-debit" minOccurs="0"/><xs:element ref="becs-direct-debit" minOccurs="0"/>' +
      '<xs:element ref="acss-direct-debit" minOccurs="0"/><xs:element ref="invoice-contact-info"/>' +
      '<xs:element ref="authorization-code" minOccurs="0"/>',
  },
  // A financial transaction's skus name each sku by its id, as the interface's batch order answer does; the
  // cart above it carries the names (sku.xsd's sku, which requires sku-name, stays the cart item's type).
  {
    file: 'order.xsd',
    find: '<xs:element ref="sku" maxOccurs="unbounded"/>',
    replace:
      '<xs:element name="sku" form="qualified" maxOccurs="unbounded"><xs:complexType><xs:sequence>' +
      '<xs:element ref="sku-id"/></xs:sequence></xs:complexType></xs:element>',
  },
  // The interface's batch order answer carries an empty wallet-provider transaction-data element in a SEPA
  // debit's financial transaction; paypal-info.xsd requires PayPal's ids in it.
  {
    file: 'paypal-info.xsd',
    find: '<xs:element ref="pp-transaction-id" />\n\t\t\t\t<xs:element ref="pp-subscription-id" />\n\t\t\t\t<xs:element ref="pp-billing-agreement-id" />',
    replace:
      '<xs:element ref="pp-transaction-id" minOccurs="0"/><xs:element ref="pp-subscription-id" minOccurs="0"/>' +
      '<xs:element ref="pp-billing-agreement-id" minOccurs="0"/>',
  },
  // An order's answer has no invoice-status: its invoice's financial transaction carries the status.
  {
    file: 'order.xsd',
    find: '<xs:element ref="invoice-status" />',
    replace: '<xs:element ref="invoice-status" minOccurs="0"/>',
  },
  // The ordering shopper's web-info is what the order was placed with; the answer names the shopper (and the
  // card charged) without repeating it.
  {
    file: 'order.xsd',
    find: '<xs:element ref="web-info" />',
    replace: '<xs:element ref="web-info" minOccurs="0"/>',
  },
  // A shopper's SEPA account is shown by its IBAN's first and last four characters (the interface's batch
  // order answer); the Extended API returns the mandate only with a subscription, and Paywire keeps no status
  // or, for an account opened outside a batch order, billing contact of a stored account.
  {
    file: 'sepa-direct-debit-info.xsd',
    find: '<xs:element ref="mandate-id" />\n\t\t\t\t<xs:element ref="mandate-date" />',
    replace: '<xs:element ref="mandate-id" minOccurs="0"/><xs:element ref="mandate-date" minOccurs="0"/>',
  },
  {
    file: 'sepa-direct-debit-info.xsd',
    find: '<xs:element ref="billing-contact-info" />',
    replace: '<xs:element ref="billing-contact-info" minOccurs="0"/>',
  },
  {
    file: 'sepa-direct-debit-info.xsd',
    find: '<xs:element ref="status" />',
    replace: '<xs:element ref="status" minOccurs="0"/>',
  },
  // A custom parameter carries the settings of its own type (the reference's own Retrieve example), each as
  // the merchant sent it (the reference's Create marks every setting optional); the schema lists every type's
  // settings as required, and every value within them.
  ...[
    'short-text-type',
    'long-text-type',
    'fixed-selection-type',
    'merchant-value-type',
    'visual-settings',
  ].map((settings) => ({
    file: 'custom-parameter.xsd',
    find: `<xs:element ref="${settings}" />`,
    replace: `<xs:element ref="${settings}" minOccurs="0"/>`,
  })),
  ...['short-text-type', 'long-text-type', 'merchant-value-type'].map((settings) => ({
    file: 'custom-parameter.xsd',
    find:
      `<xs:element name="${settings}">\n\t\t<xs:complexType>\n\t\t\t<xs:sequence>\n` +
      '\t\t\t\t<xs:element ref="minimum-length" />\n\t\t\t\t<xs:element ref="maximum-length" />',
    replace:
      `<xs:element name="${settings}"><xs:complexType><xs:sequence>` +
      '<xs:element ref="minimum-length" minOccurs="0"/><xs:element ref="maximum-length" minOccurs="0"/>',
  })),
  {
    file: 'custom-parameter.xsd',
    find: '<xs:element ref="regex-validation" />',
    replace: '<xs:element ref="regex-validation" minOccurs="0"/>',
  },
  {
    file: 'custom-parameter.xsd',
    find: '<xs:element ref="title-alignment" />',
    replace: '<xs:element ref="title-alignment" minOccurs="0"/>',
  },
  // A Paywire sku is a one-time price in one currency: the settings it has no value for are left out, as
  // the reference's own Retrieve SKU example leaves most of them out, where the schema requires each.
  ...[
    'sku-image',
    'sku-buynow-urls',
    'sku-effective-dates',
    'sku-coupon-settings',
    'sku-custom-parameters',
    'sku-ipn-settings',
    'include-tax-in-price',
    'rounding-price-method',
    'recurring-plan-settings',
    'free-trial',
    'initial-period',
    'recurring-period',
  ].map((name) => ({
    file: 'catalog-sku.xsd',
    // the schema writes the two periods' references with two spaces before the slash
    find: `<xs:element ref="${name}"${name.endsWith('-period') ? '  ' : ' '}/>`,
    replace: `<xs:element ref="${name}" minOccurs="0"/>`,
  })),
];

export type Verdict = { valid: true } | { valid: false; errors: string } | { skipped: string };

let schemaDir: string | undefined;
let unavailable: string | undefined;
let warned = false;

/** Validates one document against the schema of its root; roots with no schema are `skipped`. */
export function validateXml(document: string): Verdict {
  const root = rootOf(document);
  const file = root === undefined ? undefined : schemaOfRoot[root];
  if (file === undefined) {
    tally(`${root} unchecked`);
    return { skipped: `no schema is checked for <${root}>` };
  }
  const dir = schemas();
  if (dir === undefined) return { skipped: unavailable ?? 'schemas unavailable' };
  const result = spawnSync('xmllint', ['--noout', '--nonet', '--schema', path.join(dir, file), '-'], {
    input: document,
    encoding: 'utf8',
  });
  const verdict: Verdict =
    result.status === 0
      ? { valid: true }
      : { valid: false, errors: `${result.stderr}`.replaceAll('-:', 'line ').trim() };
  tally(`${root} ${verdict.valid ? 'valid' : 'INVALID'}`);
  return verdict;
}

/** PAYWIRE_XSD_TALLY names a file that gets one line per document validated (root and verdict). */
function tally(line: string): void {
  const file = process.env.PAYWIRE_XSD_TALLY;
  if (file) appendFileSync(file, `${line}\n`);
}

/** Throws with xmllint's findings when the document breaks its root's schema. */
export function expectSchemaValid(document: string): void {
  const verdict = validateXml(document);
  if ('skipped' in verdict) return;
  if (!verdict.valid) {
    throw new Error(`XML answer breaks the original's schema:\n${verdict.errors}\n${document}`);
  }
}

/** True when xmllint and the schemas are at hand (installing xmllint if needed). */
export function schemasAvailable(): boolean {
  return schemas() !== undefined;
}

function rootOf(document: string): string | undefined {
  return /<([a-z][a-z0-9-]*)[\s/>]/.exec(document.replace(/^\uFEFF?\s*<\?xml[^>]*\?>/, ''))?.[1];
}

function schemas(): string | undefined {
  if (schemaDir !== undefined) return schemaDir;
  if (unavailable === undefined) {
    try {
      ensureXmllint();
      schemaDir = materialize();
    } catch (error) {
      unavailable = (error as Error).message;
    }
  }
  if (schemaDir === undefined && !warned) {
    warned = true;
    console.warn(
      `${'#'.repeat(78)}\n## SKIPPED: XML answers are NOT validated against the original's XSDs\n## ${unavailable}\n${'#'.repeat(78)}`,
    );
  }
  return schemaDir;
}

/** Installs xmllint (libxml2-utils) when the machine lacks it. */
export function ensureXmllint(): void {
  if (spawnSync('xmllint', ['--version']).status === 0) return;
  const install = spawnSync(
    'sh',
    ['-c', 'apt-get update -qq && apt-get install -y -qq --no-install-recommends libxml2-utils'],
    { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, encoding: 'utf8' },
  );
  if (spawnSync('xmllint', ['--version']).status !== 0) {
    throw new Error(
      `xmllint is missing and libxml2-utils could not be installed: ${install.stderr.slice(-400)}`,
    );
  }
}

/** The layered schema folder under node_modules/.cache, from PAYWIRE_XSD_REPO or GitHub. */
function materialize(): string {
  const cache = path.resolve(import.meta.dirname, '../../node_modules/.cache/paywire-xsd');
  const amended = createHash('sha256').update(JSON.stringify(amendments)).digest('hex').slice(0, 12);
  const target = path.join(
    cache,
    [...SCHEMA_LAYERS.map((layer) => layer.commit.slice(0, 12)), amended].join('-'),
  );
  if (existsSync(path.join(target, 'transaction.xsd'))) return target;
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(path.join(cache, 'tmp-'));
  try {
    let gitDir = process.env.PAYWIRE_XSD_REPO;
    if (gitDir === undefined || gitDir === '') {
      gitDir = path.join(work, 'repo.git');
      run('git', ['init', '-q', '--bare', gitDir]);
      for (const { commit } of SCHEMA_LAYERS) {
        run('git', ['-C', gitDir, 'fetch', '-q', '--depth', '1', SCHEMA_REPOSITORY, commit], 60_000);
      }
    }
    const merged = path.join(work, 'schemas');
    mkdirSync(merged);
    for (const { commit, folder } of SCHEMA_LAYERS) {
      const files = path.join(work, commit);
      mkdirSync(files);
      const archive = spawnSync('git', ['-C', gitDir, 'archive', '--format=tar', commit, folder], {
        maxBuffer: 64 * 1024 * 1024,
      });
      if (archive.status !== 0)
        throw new Error(`git archive ${commit} failed in ${gitDir}: ${archive.stderr}`);
      run('tar', ['-x', '-C', files], 30_000, archive.stdout);
      cpSync(path.join(files, folder), merged, { recursive: true });
    }
    for (const { file, find, replace } of amendments) {
      const text = readFileSync(path.join(merged, file), 'utf8');
      if (!text.includes(find)) throw new Error(`amendment of ${file} no longer applies: ${find}`);
      writeFileSync(path.join(merged, file), text.replace(find, replace));
    }
    try {
      renameSync(merged, target);
    } catch (error) {
      // Another test worker won the race; its copy is made of the same commits.
      if (!existsSync(path.join(target, 'transaction.xsd'))) throw error;
    }
    return target;
  } catch (error) {
    throw new Error(
      `the original's XSDs could not be had (set PAYWIRE_XSD_REPO to a clone of ${SCHEMA_REPOSITORY}): ${(error as Error).message}`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function run(command: string, args: string[], timeout = 30_000, input?: Buffer): void {
  const result = spawnSync(command, args, { timeout, input, encoding: 'buffer' });
  if (result.status !== 0) {
    throw new Error(`${command} ${args[0]} failed: ${String(result.stderr ?? result.error).slice(-400)}`);
  }
}
