import { describe, expect, it } from 'vitest';
import { fromXml, toXml, type XmlShape } from './index.ts';

const messages: XmlShape = { root: 'messages', repeated: ['message'] };
const transaction: XmlShape = { root: 'card-transaction', upperCaseValues: ['processingStatus'] };

describe('toXml', () => {
  it('writes the exact document', () => {
    const body = {
      message: [
        {
          errorName: 'VALIDATION_GENERAL_FAILURE',
          code: 10001,
          description: 'currency: EUR only',
          invalidProperty: { name: 'currency', messageValue: 'USD' },
        },
      ],
    };
    expect(toXml(body, messages)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<messages xmlns="http://ws.plimus.com"><message><error-name>VALIDATION_GENERAL_FAILURE</error-name>' +
        '<code>10001</code><description>currency: EUR only</description><invalid-property><name>currency</name>' +
        '<message-value>USD</message-value></invalid-property></message></messages>',
    );
  });

  it("writes each object's elements in its schema sequence, keys it lacks last, omitted keys nowhere", () => {
    const shape: XmlShape = {
      root: 'charge',
      repeated: ['item'],
      wrapped: { destinations: 'destination' },
      sequences: {
        '': ['chargeId', 'amount', 'currency', 'info', 'item', 'destinations'],
        info: ['first', 'second'],
        item: ['key', 'value'],
        destinations: ['url', 'secret'],
      },
      omitted: ['internal'],
    };
    const xml = toXml(
      {
        later: 'x',
        destinations: [{ secret: 's', url: 'u' }],
        item: [
          { value: '1', key: 'a' },
          { value: '2', key: 'b' },
        ],
        info: { second: 2, first: 1, internal: 'no' },
        currency: 'EUR',
        internal: 'no',
        amount: 1,
        chargeId: 7,
      },
      shape,
      { namespace: '' },
    );
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<charge><charge-id>7</charge-id><amount>1</amount>' +
        '<currency>EUR</currency><info><first>1</first><second>2</second></info>' +
        '<item><key>a</key><value>1</value></item><item><key>b</key><value>2</value></item>' +
        '<destinations><destination><url>u</url><secret>s</secret></destination></destinations>' +
        '<later>x</later></charge>',
    );
  });

  it('lower-cases the values of lowerCaseValues keys, as a schema enumeration spells them', () => {
    const xml = toXml(
      { chargeInfo: { chargeType: 'INITIAL' } },
      { root: 'charge', lowerCaseValues: ['chargeType'] },
    );
    expect(xml).toContain('<charge-info><charge-type>initial</charge-type></charge-info>');
  });

  it('writes an element the schema requires as empty when the object lacks it', () => {
    const shape: XmlShape = {
      root: 'messages',
      repeated: ['message'],
      sequences: { invalidProperty: ['name', 'messageValue'] },
      required: { invalidProperty: ['messageValue'] },
    };
    const body = (invalidProperty: Record<string, unknown>) => ({ message: [{ code: 1, invalidProperty }] });
    expect(toXml(body({ name: 'cardNumber', messageValue: null }), shape, { namespace: '' })).toContain(
      '<invalid-property><name>cardNumber</name><message-value/></invalid-property>',
    );
    expect(toXml(body({ messageValue: 'USD', name: 'currency' }), shape, { namespace: '' })).toContain(
      '<invalid-property><name>currency</name><message-value>USD</message-value></invalid-property>',
    );
  });

  it('keeps key order, omits null and undefined, writes booleans and empty values', () => {
    const xml = toXml(
      {
        zeta: 'z',
        alpha: null,
        beta: undefined,
        flag: false,
        on: true,
        empty: '',
        nested: {},
        list: [null, 'x'],
      },
      { root: 'r' },
      { namespace: '' },
    );
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<r><zeta>z</zeta><flag>false</flag><on>true</on><empty/><nested/><list>x</list></r>',
    );
    expect(toXml({}, { root: 'r' })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<r xmlns="http://ws.plimus.com"/>',
    );
  });

  it('uses the configured namespace, escaped', () => {
    expect(toXml({ a: '1' }, { root: 'r' }, { namespace: 'urn:x?a=1&b="2"' })).toContain(
      '<r xmlns="urn:x?a=1&amp;b=&quot;2&quot;"><a>1</a></r>',
    );
  });

  it('upper-cases listed keys only, at any depth', () => {
    const xml = toXml(
      { cardType: 'visa', processingInfo: { processingStatus: 'success', cvvResponseCode: 'ma' } },
      transaction,
    );
    expect(xml).toContain('<card-type>visa</card-type>');
    expect(xml).toContain(
      '<processing-status>SUCCESS</processing-status><cvv-response-code>ma</cvv-response-code>',
    );
  });

  it('formats numbers through the caller, with the parent for context', () => {
    const seen: unknown[] = [];
    const xml = toXml(
      { amount: 1000, currency: 'JPY', nested: { amount: 10.5, currency: 'EUR' } },
      transaction,
      {
        formatNumber: (key, value, parent) => {
          seen.push([key, parent.currency]);
          return parent.currency === 'JPY' ? value.toFixed(0) : value.toFixed(2);
        },
      },
    );
    expect(xml).toContain('<amount>1000</amount><currency>JPY</currency><nested><amount>10.50</amount>');
    expect(seen).toEqual([
      ['amount', 'JPY'],
      ['amount', 'EUR'],
    ]);
    expect(toXml({ amount: 0.1 + 0.2 }, transaction)).toContain('<amount>0.30000000000000004</amount>');
  });

  it('writes keys listed in decimals with fixed fraction digits, at any depth, ahead of formatNumber', () => {
    const shape: XmlShape = { root: 'order', decimals: { itemSubTotal: 2, tax: 2 } };
    const xml = toXml(
      { tax: 0, cart: { cartItem: [{ itemSubTotal: 10 }, { itemSubTotal: 0.1 + 0.2 }], taxRate: 0 } },
      shape,
      { namespace: '', formatNumber: (key) => `caller:${key}` },
    );
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<order><tax>0.00</tax><cart><cart-item><item-sub-total>10.00' +
        '</item-sub-total></cart-item><cart-item><item-sub-total>0.30</item-sub-total></cart-item>' +
        '<tax-rate>caller:taxRate</tax-rate></cart></order>',
    );
    expect(toXml({ tax: 1.5 }, { root: 'r' }, { namespace: '' })).toContain('<tax>1.5</tax>');
    expect(() => toXml({ tax: Number.NaN }, shape)).toThrow(TypeError);
  });

  it('escapes hostile strings so that the document stays well-formed', () => {
    const hostile = `</description><injected attr="x">&amp;'"]]><!--<![CDATA[`;
    const xml = toXml({ description: hostile }, { root: 'r' });
    expect(xml).toContain(
      '<description>&lt;/description&gt;&lt;injected attr=&quot;x&quot;&gt;&amp;amp;&apos;&quot;]]&gt;' +
        '&lt;!--&lt;![CDATA[</description>',
    );
    expect(fromXml(xml, { root: 'r' })).toEqual({ description: hostile });
  });

  it('round-trips non-ASCII text and line breaks', () => {
    const text = 'Crème brûlée – 漢字 – 😀 – ü\r\nline two\ttab';
    const xml = toXml({ softDescriptor: text }, transaction);
    expect(xml).toContain('Crème brûlée – 漢字 – 😀');
    expect(fromXml(xml, transaction)).toEqual({ softDescriptor: text });
  });

  it('replaces characters XML cannot carry with U+FFFD', () => {
    const xml = toXml({ name: 'a\u0000b\u001Fc\uD800d\uFFFEe' }, { root: 'r' });
    expect(xml).toContain('<name>a\uFFFDb\uFFFDc\uFFFDd\uFFFDe</name>');
    expect(fromXml(xml, { root: 'r' })).toEqual({ name: 'a\uFFFDb\uFFFDc\uFFFDd\uFFFDe' });
  });

  it('refuses values JSON-shaped objects cannot hold', () => {
    const shape = { root: 'r', wrapped: { items: 'item' } };
    expect(() => toXml({ Bad: 1 }, shape)).toThrow(TypeError);
    expect(() => toXml({ bad_key: 1 }, shape)).toThrow(TypeError);
    expect(() => toXml({ amount: Number.NaN }, shape)).toThrow(TypeError);
    expect(() => toXml({ amount: Number.POSITIVE_INFINITY }, shape)).toThrow(TypeError);
    expect(() => toXml({ list: [[1]] }, shape)).toThrow(TypeError);
    expect(() => toXml({ items: 'x' }, shape)).toThrow(TypeError);
    expect(() => toXml({ when: new Date(0) }, shape)).toThrow(TypeError);
    expect(() => toXml({ big: 1n }, shape)).toThrow(TypeError);
  });
});
