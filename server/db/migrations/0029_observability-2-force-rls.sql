-- Issue 15: diagnostics, schema incidents and CSP reports force row-level security (the owner is bound too), like every other tenant-owned table.
ALTER TABLE "diagnostic_runs" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "diagnostic_attempts" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "diagnostic_checks" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "schema_incidents" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "csp_reports" FORCE ROW LEVEL SECURITY;
