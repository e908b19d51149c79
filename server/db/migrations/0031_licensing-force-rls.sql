-- Issue 16: licences force row-level security (the owner is bound too), like every other tenant-owned table.
ALTER TABLE "licences" FORCE ROW LEVEL SECURITY;
