import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { and, asc, eq } from 'drizzle-orm'
import type { DomainContext } from '#server/domain/tenancy/context'
import { createDocument } from '#server/domain/documents/documents'
import { createFolder } from '#server/domain/documents/folders'
import { putMetadataFields, putNamingStandard } from '#server/domain/documents/naming'
import { placeItemPin } from '#server/domain/documents/pins'
import { createRevisionUpload } from '#server/domain/documents/revisions'
import { receiveChunk } from '#server/domain/uploads/chunks'
import { loadSharp } from '#server/domain/photos/images'
import type { PhotoRuntime } from '#server/domain/photos/photos'
import { completeUpload } from '#server/domain/uploads/engine'
import type { BlobStore } from '#server/storage/blob-store'
import { defaultNamingFields, projectCodeForNaming } from '~/lib/documents/rules'
import type { Database } from './client'
import { projects, reportItems, reports } from './schema-reporting'
import { withTenant } from './tenancy'

/**
 * Demo controlled documents (issue 11) for the demo organisation's Riverside project: its naming
 * standard (the UK annex's fields with a realistic code list), custom metadata fields, a folder
 * tree, drawings with sheets (P01 superseded by P02), a contractual drawing, a specification and a
 * report as PDFs, and one item pinned on a drawing. Made through the domain functions, so every
 * rule, the change log and the audit apply as for a user. Files go to the given blob store.
 */

const DAY_MS = 86_400_000

type RevisionSeed = { code: string; status: string; comment: string; daysAgo: number; file: () => Promise<{ name: string; type: string; bytes: Buffer }> }
type DocumentSeed = { number: string; title: string; folder: string; metadata: Record<string, string>; revisions: RevisionSeed[] }

const FIELDS = [
  { key: 'issue-date', label: 'Date of issue', kind: 'date' as const, required: false, options: [] },
  { key: 'package', label: 'Package', kind: 'choice' as const, required: true, options: ['Substructure', 'Frame', 'Envelope', 'Fit-out', 'MEP'] },
  { key: 'author', label: 'Author', kind: 'text' as const, required: false, options: [] },
]

/** A plan drawn as SVG and rasterised: walls, a grid, room names and a title block. */
async function planSheet(title: string, number: string, revision: string, rooms: string[]): Promise<Buffer> {
  const width = 2400
  const height = 1700
  const grid = Array.from({ length: 7 }, (_, i) => 200 + i * 300)
    .map((x, i) => `<line x1="${x}" y1="120" x2="${x}" y2="1380" stroke="#9aa4b2" stroke-dasharray="12 8"/><text x="${x - 10}" y="100" font-size="36" fill="#334">${String.fromCharCode(65 + i)}</text>`)
    .join('')
  const roomBoxes = rooms
    .map((name, i) => {
      const x = 200 + (i % 3) * 600
      const y = 200 + Math.floor(i / 3) * 560
      return `<rect x="${x}" y="${y}" width="600" height="560" fill="none" stroke="#111" stroke-width="10"/><text x="${x + 40}" y="${y + 80}" font-size="44" fill="#111">${name}</text>`
    })
    .join('')
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#fff"/>${grid}${roomBoxes}
    <rect x="1900" y="1420" width="480" height="260" fill="#fff" stroke="#111" stroke-width="4"/>
    <text x="1920" y="1480" font-size="34" fill="#111">${title}</text>
    <text x="1920" y="1540" font-size="28" fill="#333">${number}</text>
    <text x="1920" y="1600" font-size="28" fill="#333">Revision ${revision} · Scale 1:100 @ A1</text>
  </svg>`
  const sharp = await loadSharp()
  return sharp(Buffer.from(svg)).png({ compressionLevel: 9, palette: true }).toBuffer()
}

/** A one-page PDF with a few lines of text (Helvetica): enough to be a real document. */
function textPdf(lines: string[]): Buffer {
  const escape = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`)
  return onePagePdf({ content: ['BT', '/F1 14 Tf', '56 780 Td', '18 TL', ...lines.map((line) => `(${escape(line)}) Tj T*`), 'ET'].join('\n'), font: true })
}

/** The smallest valid one-page PDF around a content stream (A4 unless told), with Helvetica as /F1 when `font`. */
export function onePagePdf(options: { content: string; width?: number; height?: number; font?: boolean }): Buffer {
  const { content, width = 595, height = 842, font = false } = options
  const resources = font ? ' /Resources << /Font << /F1 5 0 R >> >>' : ''
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Contents 4 0 R${resources} >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    ...(font ? ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'] : []),
  ]
  let out = '%PDF-1.4\n'
  const offsets: number[] = []
  objects.forEach((object, index) => {
    offsets.push(out.length)
    out += `${index + 1} 0 obj\n${object}\nendobj\n`
  })
  const xref = out.length
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(out, 'latin1')
}

function documentsOf(code: string): DocumentSeed[] {
  const plan = (title: string, number: string, revision: string, rooms: string[]) => async () => ({
    name: `${number}-${revision}.png`,
    type: 'image/png',
    bytes: await planSheet(title, number, revision, rooms),
  })
  const pdf = (name: string, lines: string[]) => async () => ({ name, type: 'application/pdf', bytes: textPdf(lines) })
  const ground = `${code}-ARC-ZZ-00-DR-A-0001`
  const level3 = `${code}-ARC-ZZ-03-DR-A-0003`
  const frame = `${code}-STR-ZZ-XX-DR-S-0100`
  const spec = `${code}-ARC-XX-XX-SP-A-0001`
  const report = `${code}-GCO-XX-XX-RP-W-0001`
  return [
    {
      number: ground,
      title: 'Ground floor plan',
      folder: 'Architecture',
      metadata: { 'issue-date': '2026-09-01', package: 'Fit-out', author: 'Alex Admin' },
      revisions: [
        { code: 'P01', status: 'S2', comment: 'First issue for information.', daysAgo: 60, file: plan('Ground floor plan', ground, 'P01', ['Entrance', 'Lobby', 'Bin store', 'Plant', 'Cycle store', 'Stair core']) },
        { code: 'P02', status: 'S3', comment: 'Bin store enlarged; issued for review and comment.', daysAgo: 25, file: plan('Ground floor plan', ground, 'P02', ['Entrance', 'Lobby', 'Bin store (enlarged)', 'Plant', 'Cycle store', 'Stair core']) },
      ],
    },
    {
      number: level3,
      title: 'Level 3 plan',
      folder: 'Architecture',
      metadata: { 'issue-date': '2026-09-20', package: 'Fit-out', author: 'Alex Admin' },
      revisions: [{ code: 'P01', status: 'S3', comment: 'For the level 3 snagging walk.', daysAgo: 42, file: plan('Level 3 plan', level3, 'P01', ['Flat 301', 'Flat 302', 'Corridor', 'Flat 303', 'Flat 304', 'Stair core']) }],
    },
    {
      number: frame,
      title: 'General arrangement – frame',
      folder: 'Structure',
      metadata: { 'issue-date': '2026-07-15', package: 'Frame' },
      revisions: [{ code: 'C01', status: 'A1', comment: 'Issued for construction.', daysAgo: 90, file: pdf(`${frame}-C01.pdf`, ['General arrangement - frame', frame, 'Revision C01, A1: authorised for construction'] ) }],
    },
    {
      number: spec,
      title: 'Architectural specification',
      folder: 'Specifications',
      metadata: { 'issue-date': '2026-08-02', package: 'Envelope' },
      revisions: [{ code: 'P01', status: 'S2', comment: 'Tender issue.', daysAgo: 80, file: pdf(`${spec}-P01.pdf`, ['Architectural specification', 'Section F10: brick and block walling', 'Section H92: rainscreen cladding']) }],
    },
    {
      number: report,
      title: 'Monthly progress report – October',
      folder: 'Reports',
      metadata: { 'issue-date': '2026-11-03', package: 'MEP', author: 'Sam Site' },
      revisions: [{ code: 'P01', status: 'S2', comment: 'For information.', daysAgo: 21, file: pdf(`${report}-P01.pdf`, ['Monthly progress report - October', 'Frame complete to level 5', 'Envelope: east elevation 60 %']) }],
    },
  ]
}

/** Seeds the demo organisation's documents; run after the reporting seed (it pins one of its items). */
export async function seedDocuments(db: Database, people: { tenantId: string; adminId: string }, store: BlobStore, now: Date = new Date()): Promise<void> {
  const { tenantId, adminId } = people
  let clock = now
  const rt: PhotoRuntime = {
    store,
    // The demo's revisions are issued before any transmittal exists (seed-doc-control runs after),
    // so a superseded one has nobody to tell and no link is ever signed with this throwaway key.
    links: { publicUrl: '', linkSecret: randomBytes(32).toString('hex') },
    run: (work) => withTenant(db, tenantId, (tx) => work({ tx, actor: { tenantId, userId: adminId, roleKey: 'admin' }, now: clock } satisfies DomainContext)),
    warn: () => undefined,
  }
  const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY_MS)
  const [project] = await rt.run((ctx) =>
    ctx.tx
      .select({ id: projects.id, code: projects.code })
      .from(projects)
      .where(and(eq(projects.tenantId, tenantId), eq(projects.status, 'active')))
      .orderBy(asc(projects.createdAt))
      .limit(1),
  )
  if (!project) return
  const code = projectCodeForNaming(project.code, 'DEMO')

  clock = at(100)
  const folderIds = await rt.run(async (ctx) => {
    await putNamingStandard(ctx, project.id, defaultNamingFields(code))
    await putMetadataFields(ctx, project.id, FIELDS)
    const drawings = await createFolder(ctx, project.id, { name: '01 Drawings', parentId: null })
    const ids = new Map<string, string>()
    ids.set('Architecture', (await createFolder(ctx, project.id, { name: 'Architecture', parentId: drawings.id })).id)
    ids.set('Structure', (await createFolder(ctx, project.id, { name: 'Structure', parentId: drawings.id })).id)
    ids.set('Specifications', (await createFolder(ctx, project.id, { name: '02 Specifications', parentId: null })).id)
    ids.set('Reports', (await createFolder(ctx, project.id, { name: '03 Reports', parentId: null })).id)
    return ids
  })

  const made = new Map<string, string>()
  for (const seed of documentsOf(code)) {
    const first = seed.revisions[0]
    clock = at((first?.daysAgo ?? 0) + 1)
    const doc = await rt.run((ctx) => createDocument(ctx, project.id, { number: seed.number, title: seed.title, folderId: folderIds.get(seed.folder) ?? null, metadata: seed.metadata }))
    made.set(seed.number, doc.id)
    for (const revision of seed.revisions) {
      clock = at(revision.daysAgo)
      const file = await revision.file()
      const session = await rt.run((ctx) =>
        createRevisionUpload(ctx, doc.id, { fileName: file.name, size: file.bytes.length, contentType: file.type, code: revision.code, status: revision.status, comment: revision.comment }),
      )
      await receiveChunk(rt, session.id, 0, Readable.from([file.bytes]), file.bytes.length)
      await completeUpload(rt, session.id)
    }
  }

  // An open item of the level 3 walk, pinned on the level 3 plan.
  const level3 = made.get(`${code}-ARC-ZZ-03-DR-A-0003`)
  const [item] = await rt.run((ctx) =>
    ctx.tx
      .select({ id: reportItems.id })
      .from(reportItems)
      .innerJoin(reports, and(eq(reports.tenantId, reportItems.tenantId), eq(reports.id, reportItems.reportId)))
      .where(and(eq(reportItems.tenantId, tenantId), eq(reportItems.projectId, project.id), eq(reportItems.status, 'open')))
      .orderBy(asc(reportItems.number))
      .limit(1),
  )
  if (level3 && item) {
    clock = at(5)
    await rt.run((ctx) => placeItemPin(ctx, item.id, { documentId: level3, x: 0.42, y: 0.31 }))
  }
}
