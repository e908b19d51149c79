-- Table owners bypass row-level security unless it is forced. Every tenant-owned table forces it.
ALTER TABLE "project_parties" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "party_members" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "matrix_entries" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "deliverables" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "workflow_templates" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "workflow_template_versions" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "workflows" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "workflow_revisions" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "workflow_tasks" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "workflow_events" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "document_sets" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "document_set_revisions" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "transmittals" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "transmittal_revisions" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "transmittal_recipients" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "transmittal_packages" FORCE ROW LEVEL SECURITY;
