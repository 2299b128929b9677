import { type Kysely, sql } from "kysely"

// Frozen in time: never import src/ here. The console's list of all orders (issue 33) searches
// 100k orders by order number, buyer name or email, SKU, reference id and POD draft/order id,
// newest first, a page at a time, on PGlite and PostgreSQL alike. No extension (pg_trgm would
// need loading in PGlite and a CREATE EXTENSION the database's owner may not allow): each order's
// search words, lowercased, in one array column under a GIN index, and a search is "has all these
// words". The keyset pages walk (created_at, id), alone or after a state or store.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function podsync_search_words(normalized jsonb, reference_id text, pod_draft_id text, pod_order_id text)
    returns text[] language plpgsql immutable parallel safe as $fn$
    declare
      name text := lower(normalized->>'name');
      email text := lower(normalized->>'email');
      buyer text := lower(normalized#>>'{shipTo,name}');
      words text[] := array[]::text[];
    begin
      if name is not null then words := words || name || ltrim(name, '#'); end if;
      if email is not null then words := words || email || split_part(email, '@', 1); end if;
      if buyer is not null then words := words || buyer || regexp_split_to_array(buyer, '\\s+'); end if;
      words := words || array(select lower(l->>'sku') from jsonb_array_elements(
        case when jsonb_typeof(normalized->'lines') = 'array' then normalized->'lines' else '[]'::jsonb end) as l
        where l->>'sku' is not null and l->>'sku' <> '');
      if reference_id is not null then
        words := words || lower(reference_id) || lower(substr(reference_id, strpos(reference_id, ':') + 1));
      end if;
      if pod_draft_id is not null then words := words || lower(pod_draft_id); end if;
      if pod_order_id is not null then words := words || lower(pod_order_id); end if;
      return array(select distinct w from unnest(words) as w where w <> '');
    end
    $fn$`.execute(db)
  // The words are kept in a column of their own, written by a trigger whenever what they come from
  // changes: computed at read time (the function reads the whole order document), a search that
  // matches thousands of orders spends a tenth of a millisecond on each. A plain column, not a
  // generated one, so that `podsync db copy` (insert … select *) copies it like any other.
  await sql`alter table store_orders add column search_words text[] not null default '{}'`.execute(db)
  await sql`
    create or replace function podsync_set_search_words() returns trigger language plpgsql as $fn$
    begin
      new.search_words := podsync_search_words(new.normalized, new.reference_id, new.pod_draft_id, new.pod_order_id);
      return new;
    end
    $fn$`.execute(db)
  await sql`create trigger store_orders_search_words before insert on store_orders
    for each row execute function podsync_set_search_words()`.execute(db)
  await sql`create trigger store_orders_search_words_changed before update on store_orders for each row
    when (old.normalized is distinct from new.normalized or old.reference_id is distinct from new.reference_id
      or old.pod_draft_id is distinct from new.pod_draft_id or old.pod_order_id is distinct from new.pod_order_id)
    execute function podsync_set_search_words()`.execute(db)
  await sql`update store_orders set search_words = podsync_search_words(normalized, reference_id, pod_draft_id, pod_order_id)`
    .execute(db)
  await sql`create index store_orders_search on store_orders using gin (search_words)`.execute(db)
  await db.schema.createIndex("store_orders_listed").on("store_orders").columns(["created_at", "id"]).execute()
  await db.schema.createIndex("store_orders_listed_state").on("store_orders").columns(["state", "created_at", "id"]).execute()
  await db.schema.createIndex("store_orders_listed_store").on("store_orders").columns(["store_key", "created_at", "id"]).execute()
  // The console's "what to pay": drafts not checked out, orders waiting for payment or refused it.
  await db.schema
    .createIndex("store_orders_to_pay")
    .on("store_orders")
    .columns(["created_at", "id"])
    .where(sql<boolean>`state = 'drafted' or pod_status in ('VENDOR_ORDER_STATUS_AWAITING_PAYMENT', 'VENDOR_ORDER_STATUS_PAYMENT_FAILED')`)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (
    const index of [
      "store_orders_to_pay",
      "store_orders_listed_store",
      "store_orders_listed_state",
      "store_orders_listed",
      "store_orders_search"
    ]
  ) {
    await db.schema.dropIndex(index).ifExists().execute()
  }
  await sql`drop trigger if exists store_orders_search_words on store_orders`.execute(db)
  await sql`drop trigger if exists store_orders_search_words_changed on store_orders`.execute(db)
  await sql`alter table store_orders drop column if exists search_words`.execute(db)
  await sql`drop function if exists podsync_set_search_words()`.execute(db)
  await sql`drop function if exists podsync_search_words(jsonb, text, text, text)`.execute(db)
}
