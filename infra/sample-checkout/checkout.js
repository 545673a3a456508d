// The sample shop's checkout: Paywire's hosted fields for the card, the shop's own button and server for
// the payment. The page never sees card data: only the brand and last four digits the fields report.
const container = document.getElementById('card-fields');
const payButton = document.getElementById('pay');
const message = document.getElementById('message');
const brandLine = document.getElementById('brand-line');
const token = container.dataset.token;

const say = (text) => {
  message.textContent = text;
};

async function pay(card) {
  say(`Paying with ${card.ccType} ending in ${card.last4Digits}…`);
  try {
    const response = await fetch('/pay', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    const body = await response.json();
    if (!response.ok) {
      say(`The payment did not go through (${body.error}). Start a new order to try again.`);
      return;
    }
    document.getElementById('transaction-id').textContent = body.transactionId;
    document.getElementById('card').textContent = `${body.cardType} •••• ${body.cardLastFourDigits}`;
    document.getElementById('amount').textContent = `${body.amount} ${body.currency}`;
    document.getElementById('result').hidden = false;
    payButton.hidden = true;
    say('');
  } catch {
    say('The shop could not be reached. Check your connection and try again.');
    payButton.disabled = false;
  }
}

const fields = PaywireFields.mount({
  token,
  container,
  onReady() {
    payButton.disabled = false;
  },
  onBrand(ccType) {
    brandLine.textContent = ccType ? `Card brand: ${ccType}` : '';
  },
  onSuccess: pay,
  onError(error) {
    if (error.code === 'TOKEN_UNUSABLE') {
      say('This checkout has expired. Start a new order.');
      payButton.disabled = true;
      return;
    }
    say(error.code === 'INVALID_CARD' ? 'Please check the card details.' : error.message);
    payButton.disabled = false;
  },
});

payButton.addEventListener('click', () => {
  payButton.disabled = true;
  say('Checking the card…');
  fields.submit();
});
