-- Issue 14: the new tenant-owned tables force row-level security (the owner is bound too), like every other.
ALTER TABLE "admin_config" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "admin_config_versions" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "email_templates" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "notification_preferences" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
-- The dead-letter state is called dead now (it was failed).
UPDATE "mail_outbox" SET "status" = 'dead' WHERE "status" = 'failed';
