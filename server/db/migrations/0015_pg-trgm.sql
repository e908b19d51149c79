-- Document search finds partial container numbers ("0012" finds SYM01-ARC-Z1-03-DR-A-0012) through
-- trigram indexes. pg_trgm is a trusted extension (PostgreSQL 13 and later): a database owner may
-- create it; PGlite loads it as a bundled extension (server/db/client.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
