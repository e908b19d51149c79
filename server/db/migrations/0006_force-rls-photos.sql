-- Table owners bypass row-level security unless it is forced. Every tenant-owned table forces it.
ALTER TABLE "upload_sessions" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "photos" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "photo_edits" FORCE ROW LEVEL SECURITY;
