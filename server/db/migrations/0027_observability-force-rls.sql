-- Issue 15: the observability tables force row-level security (the owner is bound too), like every other tenant-owned table.
ALTER TABLE "telemetry_events" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "frontend_errors" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "telemetry_ingest_counts" FORCE ROW LEVEL SECURITY;
