import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import pg from 'pg';

/**
 * The benchmark's yardstick: a bare Koa + pg endpoint doing the same three inserts as a Paywire sale
 * (shopper, stored card, transaction) in one database transaction, with no auth, validation, or hop.
 */
const [databaseUrl, port] = [process.argv[2], Number(process.argv[3])];
const pool = new pg.Pool({ connectionString: databaseUrl, max: 16 });
pool.on('error', () => {});
const merchantId = Number(process.argv[4]);

const app = new Koa();
app.use(bodyParser());
app.use(async (ctx) => {
  const sale = ctx.request.body as { amount: number; currency: string; creditCard: { cardNumber: string } };
  const client = await pool.connect();
  try {
    await client.query('begin');
    const shopper = await client.query(
      'insert into shopper (merchant_id, first_name, created_at, updated_at) values ($1, $2, now(), now()) returning id',
      [merchantId, 'Ada'],
    );
    const card = await client.query(
      `insert into stored_card (merchant_id, shopper_id, fingerprint, sealed_number, brand, last_four, expiration_month,
       expiration_year, card_sub_type, card_category, created_at) values ($1, $2, $3, $4, 'VISA', $5, '02', '2031', 'CREDIT', 'CLASSIC', now()) returning id`,
      [merchantId, shopper.rows[0].id, 'f', 'sealed', sale.creditCard.cardNumber.slice(-4)],
    );
    const transaction = await client.query(
      `insert into card_transaction (merchant_id, shopper_id, card_id, type, status, currency, amount_minor, captured_minor,
       processing, authorized_at, created_at, updated_at) values ($1, $2, $3, 'AUTH_CAPTURE', 'CAPTURED', $4, $5, $5, '{}', now(), now(), now()) returning id`,
      [merchantId, shopper.rows[0].id, card.rows[0].id, sale.currency, Math.round(sale.amount * 100)],
    );
    await client.query('commit');
    ctx.body = { transactionId: String(transaction.rows[0].id), vaultedShopperId: shopper.rows[0].id };
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
});
app.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
