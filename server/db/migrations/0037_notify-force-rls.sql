-- Issue 31: in-app notifications force row-level security (the owner is bound too), like every other tenant-owned table.
ALTER TABLE "notifications" FORCE ROW LEVEL SECURITY;
