// The 100,000-document workload of bench/documents.bench.ts (docs/performance.md "Documents"): one
// tenant, 5 projects × 1,000 folders × 20,000 documents named by the default naming standard,
// titles from a word list, metadata, one revision for every document past WIP, one document with
// 50 revisions, a folder holding 500 entries, and a read-write member with a few permission entries.
// Rows are written in bulk (multi-row inserts, INSERT … SELECT generate_series), then VACUUM ANALYZE.
import { randomBytes, randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { memberships, tenants, users } from '#server/db/schema'
import { documentFolders } from '#server/db/schema-documents'
import { rowsOf, withTenant } from '#server/db/tenancy'

export const DOCUMENTS = 100_000
export const FOLDERS = 5_000
const PROJECTS = ['SYM01', 'HBR02', 'KNG03', 'WTR04', 'LDN05'] as const
const DOCUMENTS_PER_PROJECT = DOCUMENTS / PROJECTS.length
const FOLDERS_PER_PROJECT = FOLDERS / PROJECTS.length
/** The big folder (project 1): 100 sub-folders and 400 documents directly inside. */
const BIG_FOLDER_SUBFOLDERS = 100
const BIG_FOLDER_DOCUMENTS = 400
const DETAIL_REVISIONS = 50

/** The default standard's codes (app/lib/documents/rules.ts): originator and role go together. */
const DISCIPLINES = [
  ['ARC', 'A'],
  ['STR', 'S'],
  ['MEP', 'M'],
  ['MEP', 'E'],
  ['CIV', 'C'],
  ['GCO', 'W'],
] as const
const VOLUMES = ['ZZ', 'XX', 'Z1', 'Z2', 'Z3']
const LEVELS = ['B1', '00', '01', '02', '03', 'M1', 'RF', 'ZZ', 'XX']
const TYPES = ['DR', 'DR', 'DR', 'DR', 'M3', 'SP', 'SH', 'RP', 'CA', 'CO', 'MI', 'SU']
/** Suitability by tenths: 30 % WIP, 40 % shared, 30 % published; one document in 50 archived. */
const STATUSES = ['S0', 'S0', 'S0', 'S1', 'S2', 'S3', 'S4', 'A1', 'B1', 'CR']

/** 40 elements × 12 views × 13 places: a word of the element list is in 1 title in 40. */
const ELEMENTS = [
  'General arrangement', 'Foundation', 'Ground beam', 'Column', 'Slab', 'Stair core', 'Lift shaft', 'Roof', 'Facade',
  'Curtain wall', 'Window', 'Door', 'Partition', 'Ceiling', 'Drainage', 'Ventilation', 'Heating', 'Lighting', 'Power',
  'Fire alarm', 'Sprinkler', 'Water supply', 'Cladding', 'Balustrade', 'Landscape', 'Retaining wall', 'Piling',
  'Transfer beam', 'Steel frame', 'Precast panel', 'Screed', 'Waterproofing', 'Insulation', 'Signage', 'Kitchen',
  'Toilet core', 'Plant room', 'Substation', 'Car park', 'Loading bay',
]
const VIEWS = ['plan', 'section', 'elevation', 'details', 'schedule', 'specification', 'calculation', 'report', 'layout', 'setting out', 'survey', 'model']
const PLACES = ['level 00', 'level 01', 'level 02', 'level 03', 'basement', 'roof', 'north wing', 'south wing', 'east core', 'west core', 'zone 1', 'zone 2', 'zone 3']
const AUTHORS = ['Mottram Partners', 'Hale Structures', 'Brightwater MEP', 'Kestrel Civils', 'Northgate Build']
const PACKAGES = ['Shell and core', 'Fit-out', 'External works']
const TOP_FOLDERS = ['Architecture', 'Structure', 'Mechanical', 'Electrical', 'Civils', 'Contractor', 'Specifications', 'Reports', 'Surveys', 'Correspondence']

export type DocumentsSeeded = {
  tenantId: string
  adminId: string
  /** A read-write member with a few permission entries. */
  memberId: string
  projectIds: string[]
  bigFolderId: string
  detailDocumentId: string
}

type FolderSeed = { id: string; projectId: string; parentId: string | null; name: string; path: string[] }

/** 1,000 folders of one project: 10 at the top, 9 below each (the big folder: 100), the rest one level further down. */
function foldersOf(projectId: string, big: boolean): FolderSeed[] {
  const folders: FolderSeed[] = []
  const add = (parent: FolderSeed | null, name: string) => {
    const id = randomUUID()
    const folder = { id, projectId, parentId: parent?.id ?? null, name, path: [...(parent?.path ?? []), id] }
    folders.push(folder)
    return folder
  }
  const tops = TOP_FOLDERS.map((name, i) => add(null, `${String(i + 1).padStart(2, '0')} ${name}`))
  if (big) for (let i = 1; i <= BIG_FOLDER_SUBFOLDERS; i++) add(tops[0] ?? null, `Sheet set ${String(i).padStart(3, '0')}`)
  const middles = (big ? tops.slice(1) : tops).flatMap((top) => VIEWS.slice(0, 9).map((view) => add(top, `${view[0]?.toUpperCase()}${view.slice(1)}s`)))
  for (let i = 0; folders.length < FOLDERS_PER_PROJECT; i++) add(middles[i % middles.length] ?? null, `Package ${String(Math.floor(i / middles.length) + 1).padStart(2, '0')}`)
  return folders
}

const textArray = (values: readonly string[]) => `{${values.map((v) => `"${v}"`).join(',')}}`

export async function seedDocuments(db: Database): Promise<DocumentsSeeded> {
  const suffix = randomBytes(4).toString('hex')
  const [tenant] = await db.insert(tenants).values({ name: 'Bench documents', slug: `bench-docs-${suffix}` }).returning({ id: tenants.id })
  const [admin, member] = await db
    .insert(users)
    .values([
      { email: `bench-docs-admin-${suffix}@example.test`, displayName: 'Bench Admin' },
      { email: `bench-docs-member-${suffix}@example.test`, displayName: 'Bench Member' },
    ])
    .returning({ id: users.id })
  if (!tenant || !admin || !member) throw new Error('seed: no tenant or users')
  const t = tenant.id
  const projectIds = PROJECTS.map(() => randomUUID())
  const folders = projectIds.map((projectId, i) => foldersOf(projectId, i === 0))
  const big = folders[0]?.[0]
  if (!big) throw new Error('seed: no big folder')

  await withTenant(db, t, async (tx) => {
    await tx.insert(memberships).values([
      { tenantId: t, userId: admin.id, roleKey: 'admin', isDefault: true },
      { tenantId: t, userId: member.id, roleKey: 'read-write', isDefault: true },
    ])
    await tx.execute(sql`
      insert into projects (tenant_id, id, title, code, created_by, revision, created_at, updated_at)
      select ${t}, id, 'Project ' || code, code, ${admin.id}, n, now(), now()
      from unnest(${textArray(projectIds)}::uuid[], ${textArray(PROJECTS)}::text[]) with ordinality as p(id, code, n)`)
    for (const projectId of projectIds) {
      await tx.execute(sql`
        insert into metadata_fields (tenant_id, project_id, key, label, kind, required, options, position)
        values (${t}, ${projectId}, 'author', 'Author', 'text', false, '{}', 0),
               (${t}, ${projectId}, 'package', 'Package', 'choice', false, ${textArray(PACKAGES)}::text[], 1)`)
    }
    const all = folders.flat()
    for (let i = 0; i < all.length; i += 1000) {
      await tx.insert(documentFolders).values(all.slice(i, i + 1000).map((f) => ({ tenantId: t, ...f, createdBy: admin.id })))
    }

    for (const [p, projectId] of projectIds.entries()) {
      const code = PROJECTS[p] as string
      // Every folder but the big one takes documents in turn; one document in 250 sits at the top.
      const shelf = (folders[p] ?? []).filter((f) => f.id !== big.id).map((f) => f.id)
      await tx.execute(sql`
        insert into documents (tenant_id, id, project_id, folder_id, number, title, discipline, doc_type, status, state,
                               current_revision_id, metadata, search_text, created_by, revision, created_at, updated_at)
        select ${t}, gen_random_uuid(), ${projectId}::uuid, folder_id, number, title, role, doc_type, status,
               case when i % 50 = 49 then 'Archived' when status = 'S0' then 'WIP' when status like 'S%' then 'Shared' else 'Published' end,
               case when status <> 'S0' then gen_random_uuid() end,
               metadata, number || ' ' || title || ' ' || (select string_agg(value, ' ') from jsonb_each_text(metadata)),
               ${admin.id}::uuid, ${p * DOCUMENTS_PER_PROJECT} + i + 1, now(), now()
        from generate_series(0, ${DOCUMENTS_PER_PROJECT - 1}) i
        cross join lateral (select
          (${textArray(DISCIPLINES.map((d) => d[0]))}::text[])[1 + i % 6] as originator,
          (${textArray(DISCIPLINES.map((d) => d[1]))}::text[])[1 + i % 6] as role,
          (${textArray(TYPES)}::text[])[1 + (i / 11) % ${TYPES.length}] as doc_type,
          (${textArray(STATUSES)}::text[])[1 + (i / 6) % 10] as status,
          case when ${p} = 0 and i < ${BIG_FOLDER_DOCUMENTS} then ${big.id}::uuid
               when i % 250 = 7 then null
               else (${textArray(shelf)}::uuid[])[1 + i % ${shelf.length}] end as folder_id,
          (${textArray(ELEMENTS)}::text[])[1 + (i * 7) % 40] || ' ' || (${textArray(VIEWS)}::text[])[1 + (i / 3) % 12] || ' ' || (${textArray(PLACES)}::text[])[1 + (i / 2) % 13] as title,
          case when i % 3 = 0 then jsonb_build_object('author', (${textArray(AUTHORS)}::text[])[1 + (i / 3) % 5], 'package', (${textArray(PACKAGES)}::text[])[1 + i % 3])
               else jsonb_build_object('package', (${textArray(PACKAGES)}::text[])[1 + i % 3]) end as metadata
        ) d
        cross join lateral (select ${code} || '-' || originator || '-' || (${textArray(VOLUMES)}::text[])[1 + (i / 7) % 5] || '-' ||
          (${textArray(LEVELS)}::text[])[1 + (i / 3) % 9] || '-' || doc_type || '-' || role || '-' || lpad((i / 6 + 1)::text, 4, '0') as number) n`)
    }
    // The current revision of every document past WIP (its file is never read by these requests).
    await tx.execute(sql`
      insert into document_revisions (tenant_id, id, document_id, version, code, status, issued_by, file_name, content_type, size_bytes, sha256, blob_key, created_at)
      select tenant_id, current_revision_id, id, 1, case when state = 'Published' or status !~ '^S' then 'C01' else 'P01' end, status, created_by,
             number || '.pdf', 'application/pdf', 250000, repeat('0', 64), 'bench/' || id, created_at
      from documents where current_revision_id is not null`)
  })

  const detailDocumentId = await withTenant(db, t, async (tx) => {
    // A WIP document of the big folder gets 50 revisions: P01…P49, then C01 (current).
    const [row] = rowsOf<{ id: string }>(await tx.execute(sql`select id from documents where folder_id = ${big.id} and status = 'S0' and state = 'WIP' order by number limit 1`))
    const documentId = row?.id
    if (!documentId) throw new Error('seed: no WIP document in the big folder')
    await tx.execute(sql`
      with revs as (
        select v, gen_random_uuid() as id, case when v < ${DETAIL_REVISIONS} then 'P' || lpad(v::text, 2, '0') else 'C01' end as code,
               case when v < ${DETAIL_REVISIONS} then 'S2' else 'A1' end as status,
               now() - (${DETAIL_REVISIONS} - v) * interval '1 day' as at
        from generate_series(1, ${DETAIL_REVISIONS}) v)
      insert into document_revisions (tenant_id, id, document_id, version, code, status, comment, issued_by, file_name, content_type, size_bytes, sha256, blob_key,
                                      superseded_at, superseded_by_id, created_at)
      select ${t}, r.id, ${documentId}::uuid, r.v, r.code, r.status, 'Issue ' || r.v, ${admin.id}::uuid, 'sheet-' || r.v || '.pdf', 'application/pdf', 250000, repeat('0', 64),
             'bench/' || r.id, nxt.at, nxt.id, r.at
      from revs r left join revs nxt on nxt.v = r.v + 1`)
    await tx.execute(sql`
      update documents set status = 'A1', state = 'Published',
        current_revision_id = (select id from document_revisions where document_id = ${documentId} and code = 'C01')
      where id = ${documentId}`)
    return documentId
  })

  // The member: project 5 hidden, project 4 read-only for their role, a top folder of project 1
  // hidden with one folder below it shown again, and one document hidden.
  await withTenant(db, t, async (tx) => {
    const [p1, , , p4, p5] = projectIds as [string, string, string, string, string]
    const hidden = folders[0]?.find((f) => f.parentId === null && f.name.startsWith('02'))
    const shownAgain = folders[0]?.find((f) => f.parentId === hidden?.id)
    if (!hidden || !shownAgain) throw new Error('seed: no folders for the member')
    await tx.execute(sql`
      insert into document_permissions (tenant_id, project_id, target_kind, target_id, subject_kind, subject, level, updated_by)
      values (${t}, ${p5}, 'project', ${p5}, 'user', ${member.id}, 'none', ${admin.id}),
             (${t}, ${p4}, 'project', ${p4}, 'role', 'read-write', 'view', ${admin.id}),
             (${t}, ${p1}, 'folder', ${hidden.id}, 'user', ${member.id}, 'none', ${admin.id}),
             (${t}, ${p1}, 'folder', ${shownAgain.id}, 'user', ${member.id}, 'view', ${admin.id}),
             (${t}, ${p1}, 'document', (select id from documents where project_id = ${p1} and folder_id is null order by number limit 1), 'user', ${member.id}, 'none', ${admin.id})`)
  })

  // As autovacuum (PostgreSQL) or the vacuum pass (PGlite, server/jobs/pglite-vacuum.ts) leaves a settled tenant.
  await db.execute(sql`vacuum analyze`)
  return { tenantId: t, adminId: admin.id, memberId: member.id, projectIds, bigFolderId: big.id, detailDocumentId }
}
