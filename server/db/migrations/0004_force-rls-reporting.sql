-- Table owners bypass row-level security unless it is forced. Every tenant-owned table forces it.
ALTER TABLE "tenant_revisions" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "change_log" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "projects" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "reports" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "packages" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "project_packages" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "report_items" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "item_responses" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "item_activity" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "saved_views" FORCE ROW LEVEL SECURITY;
