// The hosted payment fields page. Card data leaves this page only in the PUT to
// /services/2/payment-fields-tokens/{token} (same origin); it is never logged, stored, put in a URL or
// posted to the embedding page, which learns only the brand and the last four digits.
import { brandOf, passesLuhn, securityCodeLength } from './card-rules.js';

const source = 'paywire-fields';
const tokenPath = /^\/services\/2\/payment-fields-tokens\/([A-Za-z0-9_-]+)\/form\/?$/.exec(location.pathname);
const token = tokenPath ? tokenPath[1] : undefined;
// The server allowed exactly this origin to frame the page (frame-ancestors), so it is the parent's origin.
const parentOrigin = new URLSearchParams(location.search).get('origin');
const embedded = window.parent !== window && parentOrigin !== null;

/** A message to the embedding page (paywire-fields.js), only ever to the origin the page was made for. */
function tell(message) {
  if (embedded) window.parent.postMessage({ source, ...message }, parentOrigin);
}

const brandNames = {
  VISA: 'Visa',
  MASTERCARD: 'Mastercard',
  AMEX: 'American Express',
  DISCOVER: 'Discover',
  JCB: 'JCB',
  DINERS: 'Diners Club',
  UNIONPAY: 'UnionPay',
};

const digitsOf = (value) => value.replace(/\D/g, '');

function numberGroups(digits, brand) {
  const sizes = brand === 'AMEX' ? [4, 6, 5] : brand === 'DINERS' && digits.length === 14 ? [4, 6, 4] : [];
  const groups = [];
  let at = 0;
  for (const size of sizes) {
    if (at < digits.length) groups.push(digits.slice(at, at + size));
    at += size;
  }
  for (; at < digits.length; at += 4) groups.push(digits.slice(at, at + 4));
  return groups.join(' ');
}

function expiryText(digits) {
  // A first digit above 1 can only be a one-digit month.
  const padded = /^[2-9]/.test(digits) ? `0${digits}` : digits;
  return padded.length > 2 ? `${padded.slice(0, 2)} / ${padded.slice(2, 6)}` : padded;
}

/** Rewrites an input's value, keeping the caret after the same number of digits. */
function reformat(input, format, maxDigits) {
  const caret = input.selectionStart ?? input.value.length;
  const digitsBefore = digitsOf(input.value.slice(0, caret)).length;
  const text = format(digitsOf(input.value).slice(0, maxDigits));
  if (text === input.value) return;
  input.value = text;
  if (document.activeElement !== input) return;
  let position = 0;
  for (let seen = 0; position < text.length && seen < digitsBefore; position++) {
    if (/\d/.test(text[position])) seen++;
  }
  input.setSelectionRange(position, position);
}

/** Month and four-digit year from "MM / YY" or "MM / YYYY", or undefined. */
function parseExpiry(value) {
  const digits = digitsOf(value);
  if (digits.length !== 4 && digits.length !== 6) return undefined;
  const month = digits.slice(0, 2);
  const year = digits.length === 4 ? `20${digits.slice(2)}` : digits.slice(2);
  return { month, year };
}

// The same checks, in the same order, as contracts' cardNumberInput and bindTokenInput.
const checks = {
  number(value) {
    const digits = digitsOf(value);
    if (digits === '') return 'Enter the card number.';
    if (digits.length < 12 || digits.length > 19) return 'The card number is incomplete.';
    if (!passesLuhn(digits)) return 'This card number is not valid. Check it and try again.';
    if (!brandOf(digits)) return 'This card brand is not accepted.';
    return '';
  },
  exp(value) {
    if (digitsOf(value) === '') return 'Enter the expiry date.';
    const expiry = parseExpiry(value);
    if (!expiry) return 'Enter the expiry date as MM / YYYY.';
    const month = Number(expiry.month);
    if (month < 1 || month > 12) return 'The expiry month must be from 01 to 12.';
    return ''; // Whether it has passed is for the service to say: it knows the merchant's clock.
  },
  cvv(value, number) {
    const expected = securityCodeLength(brandOf(digitsOf(number)));
    const digits = digitsOf(value);
    if (digits === '') return 'Enter the security code.';
    if (digits.length !== expected || digits !== value.trim())
      return `The security code is ${expected} digits.`;
    return '';
  },
};

function start() {
  if (document.body.dataset.page !== 'form' || !token) {
    // The not-found page: tell the merchant why nothing can be entered.
    tell({
      type: 'error',
      code: document.body.dataset.error || 'TOKEN_UNUSABLE',
      message: 'form unavailable',
    });
    return;
  }
  const form = document.getElementById('card-form');
  const fieldset = document.getElementById('fields');
  const submit = document.getElementById('submit');
  const brandBadge = document.getElementById('brand');
  const formError = document.getElementById('form-error');
  const saved = document.getElementById('saved');
  const fields = {
    number: document.getElementById('cc-number'),
    exp: document.getElementById('cc-exp'),
    cvv: document.getElementById('cc-cvv'),
  };
  const errors = {
    number: document.getElementById('cc-number-error'),
    exp: document.getElementById('cc-exp-error'),
    cvv: document.getElementById('cc-cvv-error'),
  };
  // When framed, the merchant's own button submits (paywire-fields.js submit()); Enter still works.
  if (embedded) submit.hidden = true;

  function showError(name, message) {
    errors[name].textContent = message;
    fields[name].setAttribute('aria-invalid', message ? 'true' : 'false');
  }
  const check = (name) => checks[name](fields[name].value, fields.number.value);

  let shownBrand = '';
  function updateBrand() {
    const brand = brandOf(digitsOf(fields.number.value)) ?? '';
    if (brand === shownBrand) return;
    shownBrand = brand;
    brandBadge.dataset.brand = brand;
    brandBadge.textContent = brand ? brandNames[brand] : '';
    const length = securityCodeLength(brand || undefined);
    fields.cvv.maxLength = length;
    fields.cvv.placeholder = `${length} digits`;
    if (digitsOf(fields.cvv.value).length > length)
      fields.cvv.value = digitsOf(fields.cvv.value).slice(0, length);
    if (errors.cvv.textContent) showError('cvv', check('cvv'));
    tell({ type: 'brand', ccType: brand || null });
  }

  fields.number.addEventListener('input', () => {
    const brand = brandOf(digitsOf(fields.number.value));
    reformat(fields.number, (digits) => numberGroups(digits, brand), brand === 'AMEX' ? 15 : 19);
    updateBrand();
    const digits = digitsOf(fields.number.value);
    // Live Luhn: once the number is as long as its brand's numbers are, say at once whether it is valid.
    const complete = digits.length >= (brand === 'AMEX' ? 15 : 16);
    if (complete || errors.number.textContent) showError('number', complete ? check('number') : '');
  });
  fields.exp.addEventListener('input', () => {
    reformat(fields.exp, expiryText, 6);
    if (errors.exp.textContent) showError('exp', check('exp'));
  });
  fields.cvv.addEventListener('input', () => {
    reformat(fields.cvv, (digits) => digits, fields.cvv.maxLength);
    if (errors.cvv.textContent) showError('cvv', check('cvv'));
  });
  for (const name of Object.keys(fields)) {
    fields[name].addEventListener('blur', () => {
      if (fields[name].value !== '') showError(name, check(name));
    });
  }
  // No visible submit button when framed: Enter in a field submits, as in any form.
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && event.target instanceof HTMLInputElement) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  function unavailable() {
    form.hidden = true;
    document.getElementById('unavailable').hidden = false;
    tell({
      type: 'error',
      code: 'TOKEN_UNUSABLE',
      message: 'the payment form has expired or was already used',
    });
  }

  function failed(code, message) {
    formError.textContent = message;
    tell({ type: 'error', code, message });
  }

  /** Server-side problems land on the field they are about; an unusable token replaces the form. */
  function showServerErrors(messages) {
    const fieldOf = { ccNumber: 'number', expDate: 'exp', cvv: 'cvv' };
    let first;
    for (const message of messages) {
      const property = message.invalidProperty?.name;
      if (property === 'token' || message.errorName === 'INVALID_PAYMENT_DETAILS') return unavailable();
      const name = fieldOf[property];
      const text = String(message.description ?? '').replace(/^[\w.]+:\s*/, '');
      const sentence = text ? `${text[0].toUpperCase()}${text.slice(1)}.` : 'Check this field.';
      if (name) {
        showError(name, sentence);
        first ??= name;
      } else formError.textContent = sentence;
    }
    if (first) fields[first].focus();
    tell({ type: 'error', code: 'INVALID_CARD', message: 'the card details need correcting' });
  }

  let busy = false;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy || !saved.hidden) return;
    formError.textContent = '';
    let first;
    for (const name of Object.keys(fields)) {
      const message = check(name);
      showError(name, message);
      if (message) first ??= name;
    }
    if (first) {
      fields[first].focus();
      tell({ type: 'error', code: 'INVALID_CARD', message: 'the card details need correcting' });
      return;
    }
    const expiry = parseExpiry(fields.exp.value);
    busy = true;
    fieldset.disabled = true;
    submit.disabled = true;
    try {
      const response = await fetch(`/services/2/payment-fields-tokens/${encodeURIComponent(token)}`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({
          ccNumber: digitsOf(fields.number.value),
          cvv: digitsOf(fields.cvv.value),
          expDate: `${expiry.month}/${expiry.year}`,
        }),
        credentials: 'omit',
        cache: 'no-store',
        redirect: 'error',
      });
      const body = await response.json().catch(() => undefined);
      if (response.ok && body) {
        // Done: the page keeps no card data it no longer needs.
        form.reset();
        form.hidden = true;
        saved.textContent = `${brandNames[body.ccType] ?? body.ccType} ending in ${body.last4Digits} saved.`;
        saved.hidden = false;
        tell({
          type: 'success',
          ccType: body.ccType,
          last4Digits: body.last4Digits,
          issuingCountry: body.issuingCountry,
        });
        return;
      }
      if (response.status === 400 && Array.isArray(body?.message)) showServerErrors(body.message);
      else if (response.status === 404) unavailable();
      else failed('SERVICE_ERROR', 'The card could not be saved just now. Please try again.');
    } catch {
      failed('NETWORK_ERROR', 'The payment service could not be reached. Please try again.');
    } finally {
      busy = false;
      fieldset.disabled = false;
      submit.disabled = false;
    }
  });

  // The merchant's page may only ask for a submit, and only from the origin the page was made for.
  window.addEventListener('message', (event) => {
    if (!embedded || event.source !== window.parent || event.origin !== parentOrigin) return;
    if (event.data?.source === source && event.data.type === 'submit') form.requestSubmit();
  });

  const content = document.getElementById('content');
  new ResizeObserver(() =>
    tell({ type: 'resize', height: Math.ceil(content.getBoundingClientRect().height) }),
  ).observe(content);
  tell({ type: 'ready' });
}

start();
