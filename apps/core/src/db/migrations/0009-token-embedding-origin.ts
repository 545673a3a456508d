import { Migration } from '@mikro-orm/migrations';

/** The hosted fields form of a token may be framed by the first origin that framed it, and no other. */
export class TokenEmbeddingOrigin extends Migration {
  override up(): void {
    this.addSql('alter table "payment_fields_token" add column "embedding_origin" varchar(200) null');
  }
}
