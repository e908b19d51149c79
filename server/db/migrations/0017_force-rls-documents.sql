-- Table owners bypass row-level security unless it is forced. Every tenant-owned table forces it.
ALTER TABLE "document_folders" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "documents" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "document_revisions" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "naming_standards" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "metadata_fields" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "document_permissions" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "drawing_sheets" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "drawing_overlays" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "item_pins" FORCE ROW LEVEL SECURITY;
