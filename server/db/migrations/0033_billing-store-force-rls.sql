-- Issue 16: billing checkouts, store link codes and store subscriptions force row-level security (the owner is bound too), like every other tenant-owned table.
ALTER TABLE "billing_checkouts" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "store_link_codes" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "store_subscriptions" FORCE ROW LEVEL SECURITY;
