import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import pg from 'pg';

/**
 * The benchmark's yardstick (issue 13): a bare Koa + pg endpoint doing one transaction with a key insert and
 * a payment insert on the same PostgreSQL, with no auth, validation, acquirer or second process. Its shopper
 * and card are written once at start, so each sale is those two inserts.
 */
const [databaseUrl, port] = [process.argv[2], Number(process.argv[3])];
const pool = new pg.Pool({ connectionString: databaseUrl, max: 16 });
pool.on('error', () => {});
const merchantId = Number(process.argv[4]);

const { rows: shoppers } = await pool.query<{ id: number }>(
  'insert into shopper (merchant_id, first_name, created_at, updated_at) values ($1, $2, now(), now()) returning id',
  [merchantId, 'Ada'],
);
const shopperId = shoppers[0]?.id;
const { rows: cards } = await pool.query<{ id: string }>(
  `insert into stored_card (merchant_id, shopper_id, fingerprint, sealed_number, brand, last_four, expiration_month,
   expiration_year, card_sub_type, card_category, created_at)
   values ($1, $2, 'bare', 'sealed', 'VISA', '1111', '02', '2031', 'CREDIT', 'CLASSIC', now()) returning id`,
  [merchantId, shopperId],
);
const cardId = cards[0]?.id;

const app = new Koa();
app.use(bodyParser());
app.use(async (ctx) => {
  const sale = ctx.request.body as { amount: number; currency: string };
  const key = ctx.get('idempotency-key') || randomUUID();
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(
      `insert into idempotency_record (merchant_id, key, fingerprint, procedure, outcome, created_at, expires_at)
       values ($1, $2, 'bare', 'bare', '{}', now(), now() + interval '1 day')`,
      [merchantId, key],
    );
    const transaction = await client.query(
      `insert into card_transaction (merchant_id, shopper_id, card_id, type, status, currency, amount_minor, captured_minor,
       processing, authorized_at, created_at, updated_at) values ($1, $2, $3, 'AUTH_CAPTURE', 'CAPTURED', $4, $5, $5, '{}', now(), now(), now()) returning id`,
      [merchantId, shopperId, cardId, sale.currency, Math.round(sale.amount * 100)],
    );
    await client.query('commit');
    ctx.body = { transactionId: String(transaction.rows[0].id), vaultedShopperId: shopperId };
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
});
app.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
