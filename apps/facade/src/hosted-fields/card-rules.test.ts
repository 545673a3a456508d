import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as contracts from '@paywire/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { cardRulesPath, generateCardRules } from './generate-card-rules.ts';

type CardRules = Pick<typeof contracts, 'cardBrands' | 'brandOf' | 'passesLuhn' | 'securityCodeLength'>;

let browser: CardRules;
beforeAll(async () => {
  // The file the browser gets, loaded as the plain JavaScript module it is.
  const url = pathToFileURL(cardRulesPath).href;
  browser = (await import(/* @vite-ignore */ url)) as CardRules;
});

describe('card-rules.js, the hosted fields page copy of the card rules', () => {
  it('is the current generation from contracts (run generate-card-rules.ts if this fails)', () => {
    expect(readFileSync(cardRulesPath, 'utf8')).toBe(generateCardRules());
  });

  it('knows the same brands', () => {
    expect(browser.cardBrands).toEqual(contracts.cardBrands);
  });

  const table = [
    '4263982640269299',
    '4263982640269298',
    '5425233430109903',
    '2222420000001113',
    '2720990000000000',
    '2721000000000000',
    '374245455400126',
    '378282246310005',
    '6011000180331112',
    '6011000991300009',
    '6221260000000000',
    '6229250000000000',
    '6229260000000000',
    '6500000000000000',
    '3566000020000410',
    '3530111333300000',
    '36000000000008',
    '3000000000000004',
    '3060000000000000',
    '6200000000000005',
    '1234567812345670',
    '4917484589897107',
    '4007702835532454',
    '',
    '4',
    '34',
    '4263 9826 4026 9299',
    'abcd',
  ];

  it.each(table)('agrees with contracts on %j', (number) => {
    expect(browser.brandOf(number)).toBe(contracts.brandOf(number));
    expect(browser.passesLuhn(number)).toBe(contracts.passesLuhn(number));
    expect(browser.securityCodeLength(browser.brandOf(number))).toBe(
      contracts.securityCodeLength(contracts.brandOf(number)),
    );
  });

  it('agrees on the brand of every prefix of up to six digits (what the shopper sees while typing)', () => {
    let disagreements = 0;
    for (let length = 1; length <= 6; length++) {
      for (let value = 0; value < 10 ** length; value++) {
        const prefix = String(value).padStart(length, '0');
        if (browser.brandOf(prefix) !== contracts.brandOf(prefix)) disagreements++;
      }
    }
    expect(disagreements).toBe(0);
  });

  it('agrees on Luhn for every single-digit change of a valid number', () => {
    const valid = '4263982640269299';
    for (let position = 0; position < valid.length; position++) {
      for (let digit = 0; digit <= 9; digit++) {
        const number = `${valid.slice(0, position)}${digit}${valid.slice(position + 1)}`;
        expect(browser.passesLuhn(number)).toBe(contracts.passesLuhn(number));
      }
    }
  });
});
