import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import sharp from 'sharp'
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest'
import { onCommittedChanges, type CommittedChange } from '#server/db/committed-changes'
import { documentRevisions, documents } from '#server/db/schema-documents'
import { withTenant } from '#server/db/tenancy'
import { movePinsToRevision } from '#server/domain/documents/pins'
import { blobStoreFor } from '#server/storage/blob-stores'
import type { DocumentDetail, DrawingOverlay, DrawingView, ItemPin, Pin, ProjectDrawings } from '~/lib/documents/types'
import type { Project } from '~/lib/reporting/types'
import { auditOf, expectProblem, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, insertItem, newReport, organisation, put, type Signed } from '#tests/helpers/reporting-a'

/** docs/documents.md "Drawings and pins": item pins, their drawings, and the drawings overlay, through HTTP. */

let t: TestBackend
let sheetPng: Buffer

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
  sheetPng = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer()
})

afterAll(async () => {
  await t.close()
})

// ---- Helpers of this file (tests/helpers/documents.ts is another module's) ----

async function project(c: TestClient, code = 'SYM01'): Promise<Project> {
  return body<Project>(await c.post('/api/projects', { title: 'Symphony Tower', code }), 201)
}

async function document(c: TestClient, projectId: string, number: string): Promise<DocumentDetail> {
  return body<DocumentDetail>(await c.post(`/api/projects/${projectId}/documents`, { number, title: `Plan ${number}` }), 201)
}

/**
 * Issues a revision of a document directly in the database, as the revision upload does: the
 * file (and, for a sheet, its PNG raster) in the blob store, the row, the previous revision
 * superseded, the document's current revision, and the pins moved to it, in one transaction.
 */
async function issueRevision(
  who: Signed,
  documentId: string,
  code: string,
  sheet: { width: number; height: number } | null = { width: 4000, height: 2000 },
): Promise<string> {
  const store = blobStoreFor(t.config)
  const id = randomUUID()
  const blobKey = `test-revisions/${who.tenant.id}/${id}`
  const stored = await store.put(blobKey, sheetPng)
  const sheetKey = sheet ? `test-sheets/${who.tenant.id}/${id}.png` : null
  if (sheetKey) await store.put(sheetKey, sheetPng)
  await withTenant(t.db, who.tenant.id, async (tx) => {
    const ctx = { tx, actor: { tenantId: who.tenant.id, userId: who.user.id, roleKey: who.roleKey }, now: t.now() }
    const [doc] = await tx.select({ current: documents.currentRevisionId }).from(documents).where(eq(documents.id, documentId))
    const existing = await tx.select({ id: documentRevisions.id }).from(documentRevisions).where(eq(documentRevisions.documentId, documentId))
    await tx.insert(documentRevisions).values({
      tenantId: who.tenant.id,
      id,
      documentId,
      version: existing.length + 1,
      code,
      status: 'S2',
      issuedBy: who.user.id,
      fileName: `${code}.png`,
      contentType: 'image/png',
      sizeBytes: stored.size,
      sha256: stored.sha256,
      blobKey,
      sheetWidth: sheet?.width ?? null,
      sheetHeight: sheet?.height ?? null,
      sheetKey,
      createdAt: ctx.now,
    })
    if (doc?.current)
      await tx
        .update(documentRevisions)
        .set({ supersededAt: ctx.now, supersededById: id })
        .where(and(eq(documentRevisions.tenantId, who.tenant.id), eq(documentRevisions.id, doc.current)))
    await tx.update(documents).set({ currentRevisionId: id, status: 'S2', state: 'Shared' }).where(eq(documents.id, documentId))
    await movePinsToRevision(ctx, documentId, id)
  })
  return id
}

/** A project with a drawing (a sheet at P01) and a report to put items in. */
async function site(admin: Signed, code = 'SYM01') {
  const p = await project(admin.c, code)
  const doc = await document(admin.c, p.id, `${code}-ARC-Z1-03-DR-A-0001`)
  const revisionId = await issueRevision(admin, doc.id, 'P01')
  const report = await newReport(admin.c, p.id)
  return { project: p, doc, revisionId, report }
}

/** A report item written as the items API would store it, created by `who`. */
function newItem(who: Signed, report: { id: string; projectId: string }, fields: Parameters<typeof insertItem>[3] = {}) {
  return insertItem(t, { tenantId: who.tenant.id, userId: who.user.id }, report, fields)
}

function pinPath(itemId: string): string {
  return `/api/items/${itemId}/pin`
}

/** The items announced to realtime (EntityChanged ReportItem) while the test runs. */
function announcedItems(): string[] {
  const seen: string[] = []
  const stop = onCommittedChanges(t.db, (changes: readonly CommittedChange[]) => {
    for (const change of changes) if (change.entity === 'ReportItem' && change.changeType === 'Updated') seen.push(change.entityId)
  })
  onTestFinished(stop)
  return seen
}

// ---- Tests ----

test('an item is pinned on a drawing, moved, confirmed and removed; each change is audited and announced as an update of the item', async () => {
  const { admin, writer, reader } = await organisation(t)
  const { project: p, doc, revisionId, report } = await site(admin)
  const item = await newItem(writer, report, { title: 'Missing fire stop' })
  const announced = announcedItems()
  const before = await body<{ revision: number }>(await writer.c.get(`/api/items/${item.id}`))

  await expectProblem(await writer.c.get(pinPath(item.id)), 404)
  const placed = await body<ItemPin>(await put(writer.c, pinPath(item.id), { documentId: doc.id, x: 0.25, y: 0.5 }))
  expect(placed).toMatchObject({
    itemId: item.id,
    itemNumber: item.number,
    itemTitle: 'Missing fire stop',
    itemStatus: 'open',
    documentId: doc.id,
    revisionId,
    revisionCode: 'P01',
    x: 0.25,
    y: 0.5,
    needsReview: false,
    colour: '#D92D20',
    projectId: p.id,
    documentNumber: doc.number,
    sheet: { revisionId, revisionCode: 'P01', width: 4000, height: 2000, rotation: 0, url: `/api/revisions/${revisionId}/sheet` },
    colours: { open: '#D92D20', close_requested: '#F79009', closed: '#12B76A' },
  })
  // Read-only members see it too: items are visible to every member.
  expect(await body<ItemPin>(await reader.c.get(pinPath(item.id)))).toEqual(placed)

  const moved = await body<ItemPin>(await put(writer.c, pinPath(item.id), { documentId: doc.id, x: 1, y: 0 }))
  expect([moved.x, moved.y]).toEqual([1, 0])
  const listed = await body<{ items: Pin[] }>(await reader.c.get(`/api/documents/${doc.id}/pins`))
  expect(listed.items).toEqual([
    {
      itemId: item.id,
      itemNumber: item.number,
      itemTitle: 'Missing fire stop',
      itemStatus: 'open',
      documentId: doc.id,
      revisionId,
      revisionCode: 'P01',
      x: 1,
      y: 0,
      needsReview: false,
      colour: '#D92D20',
    },
  ])

  // Confirming a pin that needs no review changes nothing and records nothing.
  await body<ItemPin>(await writer.c.post(`${pinPath(item.id)}/confirm`))
  expect(await writer.c.delete(pinPath(item.id)).then((r) => r.status)).toBe(204)
  await expectProblem(await writer.c.get(pinPath(item.id)), 404)
  await expectProblem(await writer.c.delete(pinPath(item.id)), 404)
  await expectProblem(await writer.c.post(`${pinPath(item.id)}/confirm`), 404)
  expect((await body<{ items: Pin[] }>(await reader.c.get(`/api/documents/${doc.id}/pins`))).items).toEqual([])

  const placedAudit = await auditOf(t.db, { action: 'documents.pin.placed', tenantId: writer.tenant.id })
  expect(placedAudit.map((a) => a.data)).toEqual([
    { documentId: doc.id, revisionId, x: 0.25, y: 0.5 },
    { documentId: doc.id, revisionId, x: 1, y: 0, from: { documentId: doc.id, revisionId, x: 0.25, y: 0.5 } },
  ])
  expect(placedAudit.every((a) => a.actorUserId === writer.user.id)).toBe(true)
  const removedAudit = await auditOf(t.db, { action: 'documents.pin.removed', tenantId: writer.tenant.id })
  expect(removedAudit.map((a) => a.data)).toEqual([{ documentId: doc.id, revisionId, x: 1, y: 0 }])
  // Placed, moved, removed: three updates of the item for screens showing it; the item's own revision stays.
  expect(announced).toEqual([item.id, item.id, item.id])
  const after = await body<{ revision: number }>(await writer.c.get(`/api/items/${item.id}`))
  expect(after.revision).toBe(before.revision)
})

test('every refusal of a pin says which field, and stores nothing', async () => {
  const { admin, writer, reader } = await organisation(t)
  const { project: p, doc, report } = await site(admin)
  const item = await newItem(writer, report)
  const other = await site(admin, 'OTH01')
  const noSheet = await document(admin.c, p.id, 'SYM01-ARC-Z1-03-DR-A-0002')
  const textOnly = await document(admin.c, p.id, 'SYM01-ARC-Z1-03-SP-A-0003')
  await issueRevision(admin, textOnly.id, 'P01', null)
  const switchedOff = await document(admin.c, p.id, 'SYM01-ARC-Z1-03-DR-A-0004')
  await issueRevision(admin, switchedOff.id, 'P01')
  await body(await put(admin.c, `/api/admin/projects/${p.id}/drawings-overlay`, { sheets: [{ documentId: switchedOff.id, pinning: false, scale: null, rotation: 0 }] }))
  const archived = await document(admin.c, p.id, 'SYM01-ARC-Z1-03-DR-A-0005')
  await issueRevision(admin, archived.id, 'P01')
  expect((await admin.c.request(`/api/documents/${archived.id}`, { method: 'PATCH', json: { archived: true } })).status).toBe(200)

  const refusedDocument = async (documentId: string, message: RegExp) => {
    const problem = await expectProblem(await put(writer.c, pinPath(item.id), { documentId, x: 0.5, y: 0.5 }), 400, 'KR_VALIDATION')
    expect(Object.keys(problem.errors ?? {})).toEqual(['documentId'])
    expect(problem.errors?.documentId?.[0]).toMatch(message)
  }
  await refusedDocument(other.doc.id, /this item’s project/)
  await refusedDocument(noSheet.id, /no sheet/)
  await refusedDocument(textOnly.id, /no sheet/)
  await refusedDocument(switchedOff.id, /switched off/)
  await refusedDocument(archived.id, /archived/)

  for (const [x, y, fields] of [
    [-0.01, 0.5, ['x']],
    [0.5, 1.01, ['y']],
    [2, -1, ['x', 'y']],
    ['0.5', 0.5, ['x']],
    [null, 0.5, ['x']],
  ] as const) {
    const problem = await expectProblem(await put(writer.c, pinPath(item.id), { documentId: doc.id, x, y }), 400)
    expect(Object.keys(problem.errors ?? {}).sort()).toEqual([...fields])
  }
  const missing = await expectProblem(await put(writer.c, pinPath(item.id), {}), 400)
  expect(Object.keys(missing.errors ?? {}).sort()).toEqual(['documentId', 'x', 'y'])

  // Unknown and malformed drawings are not there at all.
  await expectProblem(await put(writer.c, pinPath(item.id), { documentId: randomUUID(), x: 0.5, y: 0.5 }), 404)
  await expectProblem(await put(writer.c, pinPath(item.id), { documentId: 'not-a-document', x: 0.5, y: 0.5 }), 404)
  // Read-only members may not pin, move, confirm or remove.
  await expectProblem(await put(reader.c, pinPath(item.id), { documentId: doc.id, x: 0.5, y: 0.5 }), 403, 'KR_FORBIDDEN')
  await body(await put(writer.c, pinPath(item.id), { documentId: doc.id, x: 0.5, y: 0.5 }))
  await expectProblem(await reader.c.delete(pinPath(item.id)), 403)
  await expectProblem(await reader.c.post(`${pinPath(item.id)}/confirm`), 403)
  // Unknown, malformed and deleted items are 404.
  for (const id of [randomUUID(), 'nope']) await expectProblem(await put(writer.c, pinPath(id), { documentId: doc.id, x: 0.5, y: 0.5 }), 404)
  const gone = await newItem(writer, report, { deleted: true })
  await expectProblem(await put(writer.c, pinPath(gone.id), { documentId: doc.id, x: 0.5, y: 0.5 }), 404)

  const pins = await body<{ items: Pin[] }>(await writer.c.get(`/api/documents/${doc.id}/pins`))
  expect(pins.items.map((pin) => [pin.itemId, pin.x, pin.y])).toEqual([[item.id, 0.5, 0.5]])
  expect(await auditOf(t.db, { action: 'documents.pin.placed', tenantId: writer.tenant.id })).toHaveLength(1)
})

test('pins follow the next revision of the sheet at the same place, flagged for review until confirmed or moved', async () => {
  const { admin, writer, reader } = await organisation(t)
  const { doc, revisionId: p01, report } = await site(admin)
  const first = await newItem(writer, report)
  const second = await newItem(writer, report)
  await body(await put(writer.c, pinPath(first.id), { documentId: doc.id, x: 0.1, y: 0.2 }))
  await body(await put(writer.c, pinPath(second.id), { documentId: doc.id, x: 0.3, y: 0.4 }))
  const announced = announcedItems()

  const p02 = await issueRevision(admin, doc.id, 'P02', { width: 4200, height: 2100 })
  expect(announced.sort()).toEqual([first.id, second.id].sort())
  const pins = await body<{ items: Pin[] }>(await reader.c.get(`/api/documents/${doc.id}/pins`))
  expect(pins.items.map((pin) => [pin.itemId, pin.revisionId, pin.revisionCode, pin.x, pin.y, pin.needsReview])).toEqual([
    [first.id, p02, 'P02', 0.1, 0.2, true],
    [second.id, p02, 'P02', 0.3, 0.4, true],
  ])
  const flagged = await body<ItemPin>(await reader.c.get(pinPath(first.id)))
  expect(flagged.sheet).toMatchObject({ revisionId: p02, width: 4200, height: 2100 })

  // The old sheet is still there to look at, superseded, without pins; the current one has them.
  const old = await body<DrawingView>(await reader.c.get(`/api/documents/${doc.id}/drawing?revisionId=${p01}`))
  expect(old.revision).toEqual({ id: p01, code: 'P01', superseded: true, supersededBy: { id: p02, code: 'P02' } })
  expect(old.currentRevision).toEqual({ id: p02, code: 'P02' })
  expect(old.pins).toEqual([])
  expect(old.sheet).toMatchObject({ revisionId: p01, width: 4000, height: 2000, url: `/api/revisions/${p01}/sheet` })
  const current = await body<DrawingView>(await reader.c.get(`/api/documents/${doc.id}/drawing`))
  expect(current.revision).toEqual({ id: p02, code: 'P02', superseded: false, supersededBy: null })
  expect(current.pins).toHaveLength(2)

  const confirmed = await body<ItemPin>(await writer.c.post(`${pinPath(first.id)}/confirm`))
  expect(confirmed).toMatchObject({ needsReview: false, revisionId: p02, x: 0.1, y: 0.2 })
  const movedAgain = await body<ItemPin>(await put(writer.c, pinPath(second.id), { documentId: doc.id, x: 0.35, y: 0.45 }))
  expect(movedAgain.needsReview).toBe(false)
  const confirmations = await auditOf(t.db, { action: 'documents.pin.placed', tenantId: writer.tenant.id })
  expect(confirmations.at(-2)?.data).toEqual({ documentId: doc.id, revisionId: p02, x: 0.1, y: 0.2, confirmed: true })

  // A next revision that is no sheet (a specification uploaded by mistake): the pins follow, flagged, without a sheet to show.
  const p03 = await issueRevision(admin, doc.id, 'P03', null)
  const sheetless = await body<ItemPin>(await reader.c.get(pinPath(first.id)))
  expect(sheetless).toMatchObject({ revisionId: p03, revisionCode: 'P03', needsReview: true, sheet: null })
  await expectProblem(await reader.c.get(`/api/documents/${doc.id}/drawing`), 404)
  await expectProblem(await put(writer.c, pinPath(first.id), { documentId: doc.id, x: 0.5, y: 0.5 }), 400)
  // A revision of another document is refused by the domain function.
  const elsewhere = await site(admin, 'ELS01')
  await expect(
    withTenant(t.db, admin.tenant.id, (tx) => movePinsToRevision({ tx, actor: { tenantId: admin.tenant.id, userId: admin.user.id, roleKey: 'admin' }, now: t.now() }, doc.id, elsewhere.revisionId)),
  ).rejects.toThrow(/not a revision of document/)
})

test('pins take the colour of their item’s status: the defaults, the organisation’s, or the project’s own', async () => {
  const { admin, writer } = await organisation(t)
  const { project: p, doc, report } = await site(admin)
  const statuses = ['open', 'close_requested', 'closed'] as const
  for (const [index, status] of statuses.entries()) {
    const item = await newItem(writer, report, { status })
    await body(await put(writer.c, pinPath(item.id), { documentId: doc.id, x: index / 2, y: 0.5 }))
  }
  const colours = async () => (await body<{ items: Pin[] }>(await writer.c.get(`/api/documents/${doc.id}/pins`))).items.map((pin) => [pin.itemStatus, pin.colour])
  expect(await colours()).toEqual([
    ['open', '#D92D20'],
    ['close_requested', '#F79009'],
    ['closed', '#12B76A'],
  ])

  const organisationColours = await body<DrawingOverlay>(await put(admin.c, '/api/admin/drawings-overlay', { colours: { open: '#0000ff', close_requested: ' #00FF00 ', closed: '#333333' } }))
  expect(organisationColours).toEqual({ projectId: null, colours: { open: '#0000FF', close_requested: '#00FF00', closed: '#333333' }, inherited: false, sheets: [], revision: 1 })
  expect(await colours()).toEqual([
    ['open', '#0000FF'],
    ['close_requested', '#00FF00'],
    ['closed', '#333333'],
  ])
  const inherited = await body<DrawingOverlay>(await admin.c.get(`/api/admin/projects/${p.id}/drawings-overlay`))
  expect(inherited).toMatchObject({ projectId: p.id, inherited: true, colours: organisationColours.colours })

  const own = await body<DrawingOverlay>(await put(admin.c, `/api/admin/projects/${p.id}/drawings-overlay`, { colours: { open: '#AA0000', close_requested: '#BB8800', closed: '#00AA00' } }))
  expect(own).toMatchObject({ inherited: false, colours: { open: '#AA0000', close_requested: '#BB8800', closed: '#00AA00' } })
  expect((await colours()).map(([, colour]) => colour)).toEqual(['#AA0000', '#BB8800', '#00AA00'])
  const view = await body<DrawingView>(await writer.c.get(`/api/documents/${doc.id}/drawing`))
  expect(view.colours).toEqual(own.colours)

  // Sheets only: the project keeps its own colours.
  await body(await put(admin.c, `/api/admin/projects/${p.id}/drawings-overlay`, { sheets: [] }))
  expect((await colours())[0]?.[1]).toBe('#AA0000')
  const back = await body<DrawingOverlay>(await put(admin.c, `/api/admin/projects/${p.id}/drawings-overlay`, { colours: null }))
  expect(back).toMatchObject({ inherited: true, colours: organisationColours.colours })
  expect((await colours())[0]?.[1]).toBe('#0000FF')
  const audit = await auditOf(t.db, { action: 'documents.overlay.changed', tenantId: admin.tenant.id })
  expect(audit).toHaveLength(4)
})

test('the drawings overlay sets each sheet’s pinning, scale and rotation, with every problem by field', async () => {
  const { admin, writer } = await organisation(t)
  const { project: p, doc } = await site(admin)
  const second = await document(admin.c, p.id, 'SYM01-STR-Z1-03-DR-S-0002')
  await issueRevision(admin, second.id, 'P01', { width: 1000, height: 1400 })
  await document(admin.c, p.id, 'SYM01-ARC-Z1-03-SP-A-0003')

  const overlay = await body<DrawingOverlay>(await admin.c.get(`/api/admin/projects/${p.id}/drawings-overlay`))
  expect(overlay.sheets).toEqual([
    { documentId: doc.id, number: doc.number, title: doc.title, currentRevision: { id: expect.any(String), code: 'P01' }, pinning: true, scale: null, rotation: 0 },
    { documentId: second.id, number: second.number, title: second.title, currentRevision: { id: expect.any(String), code: 'P01' }, pinning: true, scale: null, rotation: 0 },
  ])

  const saved = await body<DrawingOverlay>(
    await put(admin.c, `/api/admin/projects/${p.id}/drawings-overlay`, {
      colours: null,
      sheets: [
        { documentId: doc.id, pinning: true, scale: ' 1:100 ', rotation: 90 },
        { documentId: second.id, pinning: false, scale: '', rotation: 270 },
      ],
    }),
  )
  expect(saved.sheets.map((s) => [s.documentId, s.pinning, s.scale, s.rotation])).toEqual([
    [doc.id, true, '1:100', 90],
    [second.id, false, null, 270],
  ])
  const view = await body<DrawingView>(await writer.c.get(`/api/documents/${doc.id}/drawing`))
  expect([view.sheet.rotation, view.scale, view.pinning]).toEqual([90, '1:100', true])
  const drawings = await body<ProjectDrawings>(await writer.c.get(`/api/projects/${p.id}/drawings`))
  expect(drawings.items.map((d) => [d.number, d.pinning, d.rotation, d.sheet.width, d.sheet.height])).toEqual([
    [doc.number, true, 90, 4000, 2000],
    [second.number, false, 270, 1000, 1400],
  ])

  const problem = await expectProblem(
    await put(admin.c, `/api/admin/projects/${p.id}/drawings-overlay`, {
      colours: { open: 'red', close_requested: '#12345', closed: '#GGGGGG' },
      sheets: [{ documentId: doc.id, pinning: 'yes', scale: 'x'.repeat(21), rotation: 45 }],
    }),
    400,
  )
  expect(Object.keys(problem.errors ?? {}).sort()).toEqual(['colours.close_requested', 'colours.closed', 'colours.open', 'sheets.0.pinning', 'sheets.0.rotation', 'sheets.0.scale'])
  expect(problem.errors?.['colours.open']).toEqual(['A colour is # and six hex digits, e.g. #D92D20.'])
  const notDrawings = await expectProblem(
    await put(admin.c, `/api/admin/projects/${p.id}/drawings-overlay`, {
      sheets: [
        { documentId: doc.id, pinning: true, scale: null, rotation: 0 },
        { documentId: randomUUID(), pinning: true, scale: null, rotation: 0 },
        { documentId: doc.id, pinning: true, scale: null, rotation: 0 },
      ],
    }),
    400,
  )
  expect(Object.keys(notDrawings.errors ?? {})).toEqual(['sheets.1.documentId', 'sheets.2.documentId'])
  const organisationProblem = await expectProblem(await put(admin.c, '/api/admin/drawings-overlay', { colours: { open: '#D92D20' } }), 400)
  expect(Object.keys(organisationProblem.errors ?? {}).sort()).toEqual(['colours.close_requested', 'colours.closed'])
  // Nothing of the refused saves was stored.
  const still = await body<DrawingOverlay>(await admin.c.get(`/api/admin/projects/${p.id}/drawings-overlay`))
  expect(still.sheets.map((s) => s.rotation)).toEqual([90, 270])
})

test('only organisation administrators read or change the overlay', async () => {
  const { admin, writer, reader } = await organisation(t)
  const { project: p } = await site(admin)
  const colours = { open: '#111111', close_requested: '#222222', closed: '#333333' }
  for (const member of [writer, reader]) {
    await expectProblem(await member.c.get('/api/admin/drawings-overlay'), 403, 'KR_FORBIDDEN')
    await expectProblem(await put(member.c, '/api/admin/drawings-overlay', { colours }), 403)
    await expectProblem(await member.c.get(`/api/admin/projects/${p.id}/drawings-overlay`), 403)
    await expectProblem(await put(member.c, `/api/admin/projects/${p.id}/drawings-overlay`, { colours }), 403)
  }
  expect(await body<DrawingOverlay>(await admin.c.get('/api/admin/drawings-overlay'))).toEqual({
    projectId: null,
    colours: { open: '#D92D20', close_requested: '#F79009', closed: '#12B76A' },
    inherited: false,
    sheets: [],
    // Never saved: the members' refused saves counted nothing.
    revision: 0,
  })
  expect(await auditOf(t.db, { action: 'documents.overlay.changed', tenantId: admin.tenant.id })).toEqual([])
})

test('a drawing the caller may not view hides its pins, and is not offered', async () => {
  const { admin, writer } = await organisation(t)
  const { project: p, doc, report } = await site(admin)
  const item = await newItem(writer, report)
  await body(await put(admin.c, pinPath(item.id), { documentId: doc.id, x: 0.5, y: 0.5 }))
  await body(await put(admin.c, `/api/documents/${doc.id}/permissions`, { entries: [{ subjectKind: 'role', subject: 'read-write', level: 'none' }] }))

  await expectProblem(await writer.c.get(pinPath(item.id)), 404)
  await expectProblem(await writer.c.get(`/api/documents/${doc.id}/pins`), 404)
  await expectProblem(await writer.c.get(`/api/documents/${doc.id}/drawing`), 404)
  await expectProblem(await put(writer.c, pinPath(item.id), { documentId: doc.id, x: 0.1, y: 0.1 }), 404)
  await expectProblem(await writer.c.delete(pinPath(item.id)), 404)
  expect((await body<ProjectDrawings>(await writer.c.get(`/api/projects/${p.id}/drawings`))).items).toEqual([])
  expect((await body<ProjectDrawings>(await admin.c.get(`/api/projects/${p.id}/drawings`))).items.map((d) => d.documentId)).toEqual([doc.id])
  // The administrator still sees the pin where it was.
  expect(await body<ItemPin>(await admin.c.get(pinPath(item.id)))).toMatchObject({ x: 0.5, y: 0.5 })

  // Deleted items leave the drawing's pins.
  const gone = await newItem(writer, report)
  await body(await put(admin.c, pinPath(gone.id), { documentId: doc.id, x: 0.2, y: 0.2 }))
  expect((await admin.c.delete(`/api/items/${gone.id}`)).status).toBe(204)
  expect((await body<{ items: Pin[] }>(await admin.c.get(`/api/documents/${doc.id}/pins`))).items.map((pin) => pin.itemId)).toEqual([item.id])
})

test('another organisation’s items, drawings and projects answer 404 in every call, and nothing of theirs changes', async () => {
  const mine = await organisation(t)
  const theirs = await organisation(t)
  const their = await site(theirs.admin)
  const theirItem = await newItem(theirs.writer, their.report)
  await body(await put(theirs.writer.c, pinPath(theirItem.id), { documentId: their.doc.id, x: 0.5, y: 0.5 }))
  const my = await site(mine.admin)
  const myItem = await newItem(mine.writer, my.report)
  const colours = { open: '#111111', close_requested: '#222222', closed: '#333333' }

  const calls: Array<[string, string, unknown?]> = [
    ['GET', pinPath(theirItem.id)],
    ['PUT', pinPath(theirItem.id), { documentId: their.doc.id, x: 0.1, y: 0.1 }],
    ['PUT', pinPath(theirItem.id), { documentId: my.doc.id, x: 0.1, y: 0.1 }],
    ['PUT', pinPath(myItem.id), { documentId: their.doc.id, x: 0.1, y: 0.1 }],
    ['DELETE', pinPath(theirItem.id)],
    ['POST', `${pinPath(theirItem.id)}/confirm`, {}],
    ['GET', `/api/documents/${their.doc.id}/pins`],
    ['GET', `/api/documents/${their.doc.id}/drawing`],
    ['GET', `/api/documents/${their.doc.id}/drawing?revisionId=${their.revisionId}`],
    ['GET', `/api/documents/${my.doc.id}/drawing?revisionId=${their.revisionId}`],
    ['GET', `/api/projects/${their.project.id}/drawings`],
  ]
  const adminCalls: Array<[string, string, unknown?]> = [
    ['GET', `/api/admin/projects/${their.project.id}/drawings-overlay`],
    ['PUT', `/api/admin/projects/${their.project.id}/drawings-overlay`, { colours }],
    ['PUT', `/api/admin/projects/${my.project.id}/drawings-overlay`, { sheets: [{ documentId: their.doc.id, pinning: false, scale: null, rotation: 0 }] }],
  ]
  for (const member of [mine.admin, mine.writer, mine.reader] satisfies Signed[]) {
    for (const [method, path, json] of [...calls, ...(member.roleKey === 'admin' ? adminCalls : [])]) {
      const response = await member.c.request(path, { method, ...(json !== undefined && { json }) })
      // Refused before anything is looked up (a read-only member may not pin), which tells nothing either.
      if (member.roleKey === 'read-only' && method !== 'GET') expect([403, 404]).toContain(response.status)
      else if (path.endsWith('/drawings-overlay') && path.includes(my.project.id)) expect(response.status).toBe(400)
      else await expectProblem(response, 404)
    }
  }
  for (const id of ['not-a-uuid', randomUUID()]) {
    await expectProblem(await mine.admin.c.get(`/api/admin/projects/${id}/drawings-overlay`), 404)
    await expectProblem(await mine.admin.c.get(`/api/documents/${id}/pins`), 404)
    await expectProblem(await mine.admin.c.get(`/api/projects/${id}/drawings`), 404)
    await expectProblem(await mine.admin.c.get(pinPath(id)), 404)
  }
  await expectProblem(await mine.admin.c.get(`/api/documents/${my.doc.id}/drawing?revisionId=not-a-uuid`), 404)

  const still = await body<ItemPin>(await theirs.reader.c.get(pinPath(theirItem.id)))
  expect(still).toMatchObject({ x: 0.5, y: 0.5, needsReview: false })
  const theirOverlay = await body<DrawingOverlay>(await theirs.admin.c.get(`/api/admin/projects/${their.project.id}/drawings-overlay`))
  expect(theirOverlay).toMatchObject({ inherited: true, sheets: [{ documentId: their.doc.id, pinning: true, rotation: 0 }] })
  await expectProblem(await mine.writer.c.get(pinPath(myItem.id)), 404)
})

test('a stale move of a pin is refused with the pin as it is now and who moved it (issue 36 §4); one removed since is refused too, with no pin', async () => {
  const { admin, writer } = await organisation(t)
  const { doc, report } = await site(admin)
  const item = await newItem(writer, report)
  const opened = await body<ItemPin>(await put(writer.c, pinPath(item.id), { documentId: doc.id, x: 0.25, y: 0.5 }))

  const moved = await body<ItemPin>(await put(admin.c, pinPath(item.id), { documentId: doc.id, x: 0.75, y: 0.5, expectedRevision: opened.revision }))
  expect(moved.revision).toBeGreaterThan(opened.revision)
  const stale = await expectProblem(await put(writer.c, pinPath(item.id), { documentId: doc.id, x: 0.1, y: 0.1, expectedRevision: opened.revision }), 409, 'KR_EDIT_CONFLICT')
  const conflict = stale as unknown as { changedBy: string; currentRevision: number; current: ItemPin }
  expect(conflict.changedBy).toBe(admin.user.displayName)
  expect(conflict.currentRevision).toBe(moved.revision)
  expect([conflict.current.x, conflict.current.y]).toEqual([0.75, 0.5])
  expect((await body<ItemPin>(await writer.c.get(pinPath(item.id)))).x).toBe(0.75)

  // Removed and placed again: the revision goes on counting, so the first pin's revision is still stale.
  expect((await admin.c.delete(pinPath(item.id))).status).toBe(204)
  const gone = (await expectProblem(await put(writer.c, pinPath(item.id), { documentId: doc.id, x: 0.1, y: 0.1, expectedRevision: moved.revision }), 409, 'KR_EDIT_CONFLICT')) as unknown as { current: null }
  expect(gone.current).toBeNull()
  const again = await body<ItemPin>(await put(admin.c, pinPath(item.id), { documentId: doc.id, x: 0.5, y: 0.5 }))
  await expectProblem(await put(writer.c, pinPath(item.id), { documentId: doc.id, x: 0.1, y: 0.1, expectedRevision: opened.revision }), 409, 'KR_EDIT_CONFLICT')
  const saved = await body<ItemPin>(await put(writer.c, pinPath(item.id), { documentId: doc.id, x: 0.1, y: 0.1, expectedRevision: again.revision }))
  expect([saved.x, saved.y]).toEqual([0.1, 0.1])
})
