-- Document search under row-level security (docs/documents.md "Search", docs/performance.md
-- "Documents"). As app_user every query carries the tenant policy, and PostgreSQL evaluates a
-- query's own conditions before the policy only when their functions are LEAKPROOF; the full-text
-- match (@@ → ts_match_vq) and ILIKE (~~* → texticlike) are not marked so, which keeps them off
-- their GIN indexes and makes every text search read the whole tenant.
--
-- Both functions only compare: neither raises an error that depends on the row's value (ILIKE's
-- only error is a pattern ending in its escape character, and the pattern is always ours), and
-- neither has a side effect, so evaluating them on another tenant's rows before the policy reveals
-- nothing. Marking a function LEAKPROOF needs a superuser: PGlite runs migrations as one; on a
-- PostgreSQL server where the migrating role is not, this is skipped with a notice and an
-- administrator runs the two statements once (docs/operations.md "PostgreSQL"). Search stays
-- correct either way; only its speed differs.
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF;
    ALTER FUNCTION pg_catalog.texticlike(text, text) LEAKPROOF;
  ELSE
    RAISE NOTICE 'Document search: ask a superuser to mark ts_match_vq and texticlike LEAKPROOF (docs/operations.md).';
  END IF;
END
$$;
