-- Issue 13: forced row-level security on the Administration tables, and the audit hash chain.
ALTER TABLE "invites" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "project_invites" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "join_requests" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "support_tickets" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "support_messages" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "support_attachments" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE "retention_policies" FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
-- The hash of one audit entry: SHA-256 (hex) of a JSON array of the previous link's hash and the
-- entry's fields, the time in microseconds since the epoch. jsonb's text form is canonical (keys
-- sorted), so the same entry always hashes the same. The check (docs/admin.md "Audit") recomputes it.
CREATE FUNCTION audit_entry_hash(prev text, e audit_events) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT encode(sha256(convert_to(jsonb_build_array(
    prev, e.chain_seq, e.id, e.tenant_id, e.actor_user_id, e.action, e.target_type, e.target_id,
    e.ip, e.correlation_id, e.data, (extract(epoch FROM e.created_at) * 1000000)::bigint
  )::text, 'UTF8')), 'hex')
$$;
--> statement-breakpoint
-- Links every new entry to the last one of its chain under the chain head's row lock.
CREATE FUNCTION audit_events_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  key text := coalesce(NEW.tenant_id::text, 'global');
  head record;
BEGIN
  INSERT INTO audit_chain_heads (chain_key, seq, hash) VALUES (key, 0, NULL) ON CONFLICT (chain_key) DO NOTHING;
  SELECT seq, hash INTO head FROM audit_chain_heads WHERE chain_key = key FOR UPDATE;
  NEW.chain_seq := head.seq + 1;
  NEW.prev_hash := head.hash;
  NEW.hash := audit_entry_hash(NEW.prev_hash, NEW);
  UPDATE audit_chain_heads SET seq = NEW.chain_seq, hash = NEW.hash WHERE chain_key = key;
  RETURN NEW;
END
$$;
--> statement-breakpoint
-- The entries written before the chain existed are linked in the order they were written.
DO $$
DECLARE
  e audit_events;
  key text;
  last_key text := NULL;
  seq bigint := 0;
  prev text := NULL;
BEGIN
  FOR e IN SELECT * FROM audit_events ORDER BY coalesce(tenant_id::text, 'global'), created_at, id LOOP
    key := coalesce(e.tenant_id::text, 'global');
    IF last_key IS DISTINCT FROM key THEN
      IF last_key IS NOT NULL THEN
        INSERT INTO audit_chain_heads (chain_key, seq, hash) VALUES (last_key, seq, prev);
      END IF;
      seq := 0;
      prev := NULL;
      last_key := key;
    END IF;
    seq := seq + 1;
    e.chain_seq := seq;
    e.prev_hash := prev;
    e.hash := audit_entry_hash(prev, e);
    UPDATE audit_events SET chain_seq = e.chain_seq, prev_hash = e.prev_hash, hash = e.hash WHERE id = e.id;
    prev := e.hash;
  END LOOP;
  IF last_key IS NOT NULL THEN
    INSERT INTO audit_chain_heads (chain_key, seq, hash) VALUES (last_key, seq, prev);
  END IF;
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_events_chain BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_chain();
--> statement-breakpoint
-- The log is append-only for the application: entries are never changed or removed by it.
REVOKE UPDATE, DELETE ON audit_events FROM app_user;
--> statement-breakpoint
REVOKE DELETE ON audit_chain_heads FROM app_user;
