-- Document search filtered by discipline and status (docs/documents.md "Search"): an index scan of
-- the matches instead of reading the whole tenant. Equality on text is leakproof, so unlike the
-- full-text and trigram indexes this one is usable under row-level security as app_user
-- (docs/performance.md "Documents").
CREATE INDEX IF NOT EXISTS "documents_filter_idx" ON "documents" USING btree ("tenant_id","discipline","status");
