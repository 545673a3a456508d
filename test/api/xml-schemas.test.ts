import { describe, expect, it } from 'vitest';
import { schemasAvailable, validateXml } from '../support/xsd.ts';

// The validator every XML answer of the suite goes through (test/support/http.ts): it must tell a document
// in the schema's order from one in JSON key order, or its passes prove nothing. See docs/xml-schemas.md.
const available = schemasAvailable();
const head = '<?xml version="1.0" encoding="UTF-8"?>\n';
const ns = 'xmlns="http://ws.plimus.com"';

describe.skipIf(!available)("the original's XSDs, through xmllint", () => {
  it('accepts a card transaction in the schema sequence, with the reference-only elements last', () => {
    const document =
      `${head}<card-transaction ${ns}><card-transaction-type>AUTH_CAPTURE</card-transaction-type>` +
      '<transaction-id>1</transaction-id><recurring-transaction>ECOMMERCE</recurring-transaction>' +
      '<amount>1.00</amount><currency>USD</currency><credit-card><card-last-four-digits>9299</card-last-four-digits>' +
      '</credit-card><processing-info><processing-status>SUCCESS</processing-status>' +
      '<authorization-code>1</authorization-code></processing-info><three-d-secure>' +
      '<authentication-result>AUTHENTICATION_SUCCEEDED</authentication-result></three-d-secure></card-transaction>';
    expect(validateXml(document)).toEqual({ valid: true });
  });

  it('refuses the same transaction in JSON key order (amount before recurring-transaction)', () => {
    const document =
      `${head}<card-transaction ${ns}><card-transaction-type>AUTH_CAPTURE</card-transaction-type>` +
      '<transaction-id>1</transaction-id><amount>1.00</amount><currency>USD</currency>' +
      '<recurring-transaction>ECOMMERCE</recurring-transaction></card-transaction>';
    const verdict = validateXml(document);
    expect(verdict).toMatchObject({ valid: false });
    expect(JSON.stringify(verdict)).toContain('recurring-transaction');
  });

  it('refuses an element the schema lacks, and an invalid-property without message-value', () => {
    const refund = `${head}<refund ${ns}><amount>1.00</amount><currency>USD</currency><date>01/02/2026</date><transaction-id>1</transaction-id></refund>`;
    expect(validateXml(refund)).toMatchObject({ valid: false });
    const error = `${head}<messages ${ns}><message><error-name>X</error-name><code>1</code><description>d</description><invalid-property><name>n</name></invalid-property></message></messages>`;
    expect(validateXml(error)).toMatchObject({ valid: false });
  });
});
