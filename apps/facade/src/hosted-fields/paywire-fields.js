// Paywire hosted payment fields, for merchants' checkout pages:
//
//   <script src="https://paywire.example/services/2/hosted-fields/paywire-fields.js"></script>
//   const fields = PaywireFields.mount({
//     token,                  // from POST /services/2/payment-fields-tokens, made by the merchant's server
//     container: '#card',     // a selector or an element; the card form is put inside it, in an iframe
//     onSuccess(card) {},     // {ccType, last4Digits, issuingCountry}: the card is bound to the token
//     onError(error) {},      // {code, message}: INVALID_CARD, TOKEN_UNUSABLE, SERVICE_ERROR or NETWORK_ERROR
//     onBrand(ccType) {},     // optional: the brand as the shopper types (VISA, AMEX, ... or null)
//     onReady() {},           // optional: the fields are shown
//   });
//   fields.submit();          // the merchant's Pay button: binds the card, then onSuccess or onError
//   fields.destroy();
//
// Card data stays inside the iframe (Paywire's origin). Messages go only to that origin and are accepted
// only from that iframe; the iframe likewise talks only to the origin of the page that mounted it.
(() => {
  const source = 'paywire-fields';
  const tokenPattern = /^[A-Za-z0-9_-]{22,64}$/;
  const script = document.currentScript;
  // The Paywire base URL (.../services/2/) is where this script came from, unless mount() is told otherwise.
  const defaultBase =
    script instanceof HTMLScriptElement && script.src ? new URL('../', script.src) : undefined;

  function mount(options) {
    const { token, container, onSuccess, onError, onBrand, onReady } = options ?? {};
    if (typeof token !== 'string' || !tokenPattern.test(token)) {
      throw new Error('PaywireFields.mount: token must be a payment fields token');
    }
    const host = typeof container === 'string' ? document.querySelector(container) : container;
    if (!(host instanceof Element)) throw new Error('PaywireFields.mount: container not found');
    const base = options.baseUrl ? new URL(options.baseUrl) : defaultBase;
    if (!base) throw new Error('PaywireFields.mount: give baseUrl (https://.../services/2/)');
    const paywireOrigin = base.origin;

    const url = new URL(
      `payment-fields-tokens/${token}/form`,
      base.href.endsWith('/') ? base : `${base.href}/`,
    );
    url.searchParams.set('origin', window.location.origin);
    const iframe = document.createElement('iframe');
    iframe.title = 'Card details';
    iframe.className = 'paywire-fields';
    iframe.referrerPolicy = 'no-referrer';
    iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
    iframe.style.width = '100%';
    iframe.style.height = '190px';
    iframe.style.border = '0';
    iframe.src = url.href;

    let ready = false;
    let submitWaiting = false;
    const send = (type) => iframe.contentWindow?.postMessage({ source, type }, paywireOrigin);

    function receive(event) {
      if (event.origin !== paywireOrigin || event.source !== iframe.contentWindow) return;
      const data = event.data;
      if (typeof data !== 'object' || data === null || data.source !== source) return;
      if (data.type === 'ready') {
        ready = true;
        if (submitWaiting) send('submit');
        submitWaiting = false;
        onReady?.();
      } else if (data.type === 'resize' && Number.isFinite(data.height)) {
        iframe.style.height = `${Math.min(Math.max(Math.ceil(data.height), 40), 2000)}px`;
      } else if (data.type === 'brand') {
        onBrand?.(typeof data.ccType === 'string' ? data.ccType : null);
      } else if (data.type === 'success') {
        onSuccess?.({
          ccType: String(data.ccType),
          last4Digits: String(data.last4Digits),
          issuingCountry: String(data.issuingCountry ?? ''),
        });
      } else if (data.type === 'error') {
        onError?.({ code: String(data.code), message: String(data.message ?? '') });
      }
    }

    window.addEventListener('message', receive);
    host.replaceChildren(iframe);
    return Object.freeze({
      submit() {
        if (ready) send('submit');
        else submitWaiting = true;
      },
      destroy() {
        window.removeEventListener('message', receive);
        iframe.remove();
      },
    });
  }

  window.PaywireFields = Object.freeze({ mount });
})();
