import { Migration } from '@mikro-orm/migrations';

/**
 * A sale's statement settles its payment attempt (cards/queries.ts), and is sent with its transaction's
 * commit, unanswered until then: when recovery took the attempt over meanwhile, nothing settles, and this
 * check fails the statement (SQLSTATE PW001), so the commit rolls the sale back.
 */
export class AttemptSettledCheck extends Migration {
  override up(): void {
    this.addSql(`create function "payment_attempt_settled"("settled" bigint, "reference" text) returns integer
      language plpgsql as $$
      begin
        if "settled" <> 1 then
          raise exception 'payment attempt % was taken over by recovery', "reference" using errcode = 'PW001';
        end if;
        return 1;
      end $$`);
  }
}
