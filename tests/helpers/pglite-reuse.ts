import type { PGlite } from '@electric-sql/pglite'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { openPglite, type Database } from '#server/db/client'

/**
 * The API suite's PGlite databases, used again by the next file of the same worker (the api
 * project runs its files one after another in each worker, isolate: false). Loading the template
 * into a new PGlite cost about 1 CPU-s a file (its WebAssembly instance, PostgreSQL's start and the
 * migrations' check); emptying a finished file's tables costs about 0.2 (2026-11-30).
 *
 * A database goes back to the template's state or is not used again:
 * - every table is emptied and every sequence restarted (the migrations leave no rows to keep);
 * - a database whose catalog (tables, columns, functions, policies, triggers, roles, grants,
 *   row-level security, session settings) differs from the template's after the file is closed,
 *   rather than repaired: a test that changed the schema or the roles gets no successor;
 * - a file's backend may still have work in flight when the file closes it (an audit line written
 *   after the answer, say). Each file sees the database through a view that refuses every query
 *   once the file has closed it, so nothing of a finished file reaches the next one's rows.
 */

export type FileDatabase = {
  db: Database
  /** Whether an earlier file's database was emptied for this one (else the template was loaded). */
  reused: boolean
  /** Ends the file's use of it: its view refuses further queries; the database is emptied for the next file, or closed. */
  close(): Promise<void>
}

/** The worker's emptied databases, waiting for a file. */
const spare: PGlite[] = []

/** The template's catalog, read once from a freshly loaded database. */
let templateFingerprint: string | undefined

/**
 * Everything about a database besides its rows that a test could change and a successor would
 * notice. Read as the session's own user, so a `set role` left behind shows too.
 */
const FINGERPRINT = `
  select concat_ws(' | ',
    current_user,
    (select md5(string_agg(concat_ws(':', n.nspname, c.relname, c.relkind, c.relacl::text, c.relrowsecurity, c.relforcerowsecurity, c.relnatts), ',' order by n.nspname, c.relname))
       from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')),
    (select md5(string_agg(concat_ws(':', attrelid::regclass::text, attname, atttypid, attnotnull, attisdropped), ',' order by attrelid, attnum))
       from pg_attribute where attrelid in (select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public')),
    (select md5(string_agg(concat_ws(':', polrelid::regclass::text, polname, polcmd, polpermissive, polroles::text, pg_get_expr(polqual, polrelid), pg_get_expr(polwithcheck, polrelid)), ',' order by polrelid, polname)) from pg_policy),
    (select md5(string_agg(concat_ws(':', tgrelid::regclass::text, tgname, tgenabled), ',' order by tgrelid, tgname)) from pg_trigger),
    (select md5(string_agg(concat_ws(':', p.proname, md5(p.prosrc), p.proacl::text), ',' order by p.oid)) from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname not in ('pg_catalog', 'information_schema')),
    (select md5(string_agg(concat_ws(':', rolname, rolsuper, rolinherit, rolbypassrls, rolcanlogin), ',' order by rolname)) from pg_roles),
    (select count(*) from pg_auth_members),
    (select count(*) from pg_db_role_setting),
    (select count(*) from pg_largeobject_metadata),
    (select md5(coalesce(string_agg(concat_ws('=', name, setting), ',' order by name), '')) from pg_settings where source = 'session')
  ) as fingerprint`

/** Empties every table of the application's schema and restarts its sequences (drizzle's own bookkeeping is another schema). */
const EMPTY = `
  do $$
  declare
    tables text;
    seq record;
  begin
    select string_agg(format('%I.%I', schemaname, tablename), ', ') into tables from pg_tables where schemaname = 'public';
    if tables is not null then execute 'truncate ' || tables || ' restart identity cascade'; end if;
    for seq in select schemaname, sequencename from pg_sequences where schemaname = 'public' loop
      execute format('alter sequence %I.%I restart', seq.schemaname, seq.sequencename);
    end loop;
  end $$`

async function fingerprintOf(client: PGlite): Promise<string> {
  const { rows } = await client.query<{ fingerprint: string }>(FINGERPRINT)
  return rows[0]?.fingerprint ?? ''
}

/** Empties a database whose catalog is still the template's; false when it is not, or the database failed. */
async function emptiedForNextFile(client: PGlite, template: string): Promise<boolean> {
  try {
    if ((await fingerprintOf(client)) !== template) return false
    await client.exec(EMPTY)
    return true
  } catch {
    return false
  }
}

/** A database in the template's state for one file: a spare of this worker's, else the template loaded anew. */
export async function openFileDatabase(migrationsFolder: string, template: () => Promise<Blob>): Promise<FileDatabase> {
  const reused = spare.length > 0
  const client = spare.pop() ?? (await openPglite('memory://', migrationsFolder, await template())).client
  templateFingerprint ??= await fingerprintOf(client)
  const fingerprint = templateFingerprint
  let open = true
  const refuse = () => Promise.reject(new Error('This test file has closed its database; a query of its backend arrived after that.'))
  const guarded = new Set<PropertyKey>(['query', 'exec', 'transaction', 'sql'])
  const view = new Proxy(client, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target)
      if (typeof value !== 'function') return value
      const bound = (value as (...args: unknown[]) => unknown).bind(target)
      if (!guarded.has(property)) return bound
      return (...args: unknown[]) => (open ? bound(...args) : refuse())
    },
  })
  return {
    db: drizzlePglite({ client: view }) as unknown as Database,
    reused,
    async close() {
      if (!open) return
      open = false
      if (client.closed) return
      if (await emptiedForNextFile(client, fingerprint)) spare.push(client)
      // Changed, or not usable any more: the next file loads the template.
      else await client.close().catch(() => undefined)
    },
  }
}
