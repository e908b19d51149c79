import { and, asc, eq, inArray, isNotNull, isNull, ne, sql, type SQL } from 'drizzle-orm'
import { documentFolders, documentRevisions, documents, drawingOverlays, drawingSheets } from '#server/db/schema-documents'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import type { DrawingOverlay, DrawingSheet, PinColours, ProjectDrawing, ProjectDrawings, SheetImage, SheetRotation } from '~/lib/documents/types'
import type { DomainContext } from '../tenancy/context'
import { bumpListRevision, listRevision, refuseStaleWrite } from '../tenancy/edit-conflict'
import { actorEntries, forbidden, visibleCondition } from './access'
import { findProject, recordDocumentAudit } from './places'

/**
 * Drawings (docs/documents.md "Drawings and pins"): a document whose current revision has a sheet
 * raster. How a project's sheets are shown (offered for pinning, scale, rotation) and the pin
 * colours by item status (the organisation's, or a project's own) are the drawings overlay, which
 * only organisation administrators change.
 */

/** Ours (docs/documents.md): red, amber and green, as every field product colours its pins. */
export const DEFAULT_PIN_COLOURS: PinColours = { open: '#D92D20', close_requested: '#F79009', closed: '#12B76A' }
/** A scale as printed in the title block ("1:100", "1:50 @ A1"). */
export const SHEET_SCALE_MAX = 20
export const SHEET_ROTATIONS = [0, 90, 180, 270] as const satisfies readonly SheetRotation[]

export type SheetSetting = { documentId: string; pinning: boolean; scale: string | null; rotation: SheetRotation }
/** colours null: the organisation's; absent: unchanged. */
export type ProjectOverlayInput = { colours?: PinColours | null | undefined; sheets?: SheetSetting[] | undefined }

export function sheetUrl(revisionId: string): string {
  return `/api/revisions/${revisionId}/sheet`
}

/** Only administrators of the organisation read or change the overlay. */
function requireAdmin(ctx: DomainContext): void {
  if (ctx.actor.roleKey !== 'admin') throw forbidden('Only administrators of the organisation set up drawings and pin colours.')
}

async function storedColours(ctx: DomainContext, projectId: string | null): Promise<PinColours | undefined> {
  const [row] = await ctx.tx
    .select({ colours: drawingOverlays.colours })
    .from(drawingOverlays)
    .where(and(eq(drawingOverlays.tenantId, ctx.actor.tenantId), projectId === null ? isNull(drawingOverlays.projectId) : eq(drawingOverlays.projectId, projectId)))
    .limit(1)
  return row ? { ...DEFAULT_PIN_COLOURS, ...row.colours } : undefined
}

/** The pin colours of a project: its own, else the organisation's (inherited), else the defaults. */
export async function coloursOf(ctx: DomainContext, projectId: string): Promise<{ colours: PinColours; inherited: boolean }> {
  const own = await storedColours(ctx, projectId)
  if (own) return { colours: own, inherited: false }
  return { colours: (await storedColours(ctx, null)) ?? DEFAULT_PIN_COLOURS, inherited: true }
}

/** One writer of a scope's colours at a time, so two first saves cannot both insert. */
async function lockOverlay(ctx: DomainContext, projectId: string | null): Promise<void> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`drawing-overlay:${ctx.actor.tenantId}:${projectId ?? 'organisation'}`}, 0))`)
}

async function storeColours(ctx: DomainContext, projectId: string | null, colours: PinColours | null): Promise<void> {
  await lockOverlay(ctx, projectId)
  const scope = and(eq(drawingOverlays.tenantId, ctx.actor.tenantId), projectId === null ? isNull(drawingOverlays.projectId) : eq(drawingOverlays.projectId, projectId))
  if (colours === null) {
    await ctx.tx.delete(drawingOverlays).where(scope)
    return
  }
  const updated = await ctx.tx.update(drawingOverlays).set({ colours, updatedAt: ctx.now }).where(scope).returning({ id: drawingOverlays.id })
  if (updated.length === 0) await ctx.tx.insert(drawingOverlays).values({ tenantId: ctx.actor.tenantId, projectId, colours, createdAt: ctx.now, updatedAt: ctx.now })
}

/** GET /api/admin/drawings-overlay */
export async function getOrganisationOverlay(ctx: DomainContext): Promise<DrawingOverlay> {
  requireAdmin(ctx)
  const { revision } = await listRevision(ctx, 'drawings-overlay', ctx.actor.tenantId)
  return { projectId: null, colours: (await storedColours(ctx, null)) ?? DEFAULT_PIN_COLOURS, inherited: false, sheets: [], revision }
}

/** A save of an overlay (the organisation's, or a project's): refused when stale (409 KR_EDIT_CONFLICT), else counted. */
async function savingOverlay(ctx: DomainContext, projectId: string | null, expectedRevision: number | undefined): Promise<void> {
  const saved = await listRevision(ctx, 'drawings-overlay', projectId ?? ctx.actor.tenantId, { lock: true })
  await refuseStaleWrite(ctx, { ...saved, what: 'drawings overlay' }, expectedRevision, () => (projectId ? getProjectOverlay(ctx, projectId) : getOrganisationOverlay(ctx)))
  await bumpListRevision(ctx, 'drawings-overlay', projectId ?? ctx.actor.tenantId)
}

/** PUT /api/admin/drawings-overlay */
export async function putOrganisationOverlay(ctx: DomainContext, colours: PinColours, expectedRevision?: number): Promise<DrawingOverlay> {
  requireAdmin(ctx)
  await savingOverlay(ctx, null, expectedRevision)
  await storeColours(ctx, null, colours)
  await recordDocumentAudit(ctx, 'documents.overlay.changed', 'DrawingOverlay', ctx.actor.tenantId, { projectId: null, colours })
  return getOrganisationOverlay(ctx)
}

type SheetRow = {
  documentId: string
  number: string
  title: string
  revisionId: string
  revisionCode: string
  width: number | null
  height: number | null
  pinning: boolean | null
  scale: string | null
  rotation: number | null
}

const sheetColumns = {
  documentId: documents.id,
  number: documents.number,
  title: documents.title,
  revisionId: documentRevisions.id,
  revisionCode: documentRevisions.code,
  width: documentRevisions.sheetWidth,
  height: documentRevisions.sheetHeight,
  pinning: drawingSheets.pinning,
  scale: drawingSheets.scale,
  rotation: drawingSheets.rotation,
}

function rotationOf(value: number | null | undefined): SheetRotation {
  return SHEET_ROTATIONS.find((r) => r === value) ?? 0
}

export function sheetImage(revision: { id: string; code: string }, size: { width: number; height: number }, rotation: number | null | undefined): SheetImage {
  return { revisionId: revision.id, revisionCode: revision.code, width: size.width, height: size.height, rotation: rotationOf(rotation), url: sheetUrl(revision.id) }
}

function drawingOf(row: SheetRow): ProjectDrawing {
  return {
    documentId: row.documentId,
    number: row.number,
    title: row.title,
    currentRevision: { id: row.revisionId, code: row.revisionCode },
    // No settings row: offered for pinning, no scale, upright.
    pinning: row.pinning ?? true,
    scale: row.scale,
    rotation: rotationOf(row.rotation),
    sheet: sheetImage({ id: row.revisionId, code: row.revisionCode }, { width: row.width ?? 1, height: row.height ?? 1 }, row.rotation),
  }
}

/**
 * The drawings of a project, by number: its documents (not archived) whose current revision has a
 * sheet, with their settings. `visible` adds the caller's permission rule to the query.
 */
async function drawingsOf(ctx: DomainContext, projectId: string, visible?: SQL): Promise<ProjectDrawing[]> {
  const rows = await ctx.tx
    .select(sheetColumns)
    .from(documents)
    .innerJoin(documentRevisions, and(eq(documentRevisions.tenantId, documents.tenantId), eq(documentRevisions.id, documents.currentRevisionId)))
    .leftJoin(drawingSheets, and(eq(drawingSheets.tenantId, documents.tenantId), eq(drawingSheets.documentId, documents.id)))
    .leftJoin(documentFolders, and(eq(documentFolders.tenantId, documents.tenantId), eq(documentFolders.id, documents.folderId)))
    .where(
      and(
        eq(documents.tenantId, ctx.actor.tenantId),
        eq(documents.projectId, projectId),
        ne(documents.state, 'Archived'),
        isNotNull(documentRevisions.sheetKey),
        isNotNull(documentRevisions.sheetWidth),
        isNotNull(documentRevisions.sheetHeight),
        visible,
      ),
    )
    .orderBy(asc(documents.number), asc(documents.id))
  return rows.map(drawingOf)
}

function settingsOnly(drawing: ProjectDrawing): DrawingSheet {
  const { sheet: _sheet, ...setting } = drawing
  return setting
}

/** GET /api/admin/projects/{projectId}/drawings-overlay */
export async function getProjectOverlay(ctx: DomainContext, projectId: string): Promise<DrawingOverlay> {
  requireAdmin(ctx)
  await findProject(ctx, projectId)
  const { colours, inherited } = await coloursOf(ctx, projectId)
  const { revision } = await listRevision(ctx, 'drawings-overlay', projectId)
  return { projectId, colours, inherited, sheets: (await drawingsOf(ctx, projectId)).map(settingsOnly), revision }
}

/**
 * PUT /api/admin/projects/{projectId}/drawings-overlay: the project's own colours (null: the
 * organisation's) and the settings of the sheets listed (the others keep theirs). Every problem
 * comes back at once, by field (`sheets.2.documentId`). A save against an older revision of the
 * overlay is refused (409 KR_EDIT_CONFLICT with the overlay as it is now).
 */
export async function putProjectOverlay(ctx: DomainContext, projectId: string, input: ProjectOverlayInput & { expectedRevision?: number | undefined }): Promise<DrawingOverlay> {
  requireAdmin(ctx)
  await findProject(ctx, projectId)
  const sheets = input.sheets ?? []
  const drawings = new Set((await drawingsOf(ctx, projectId)).map((d) => d.documentId))
  const errors: FieldErrors = {}
  const seen = new Set<string>()
  sheets.forEach((sheet, index) => {
    if (!drawings.has(sheet.documentId)) errors[`sheets.${index}.documentId`] = ['Choose a drawing of this project: a document whose current revision is a sheet.']
    else if (seen.has(sheet.documentId)) errors[`sheets.${index}.documentId`] = ['This drawing is listed twice.']
    seen.add(sheet.documentId)
  })
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('Some sheets are not valid.', errors))
  await savingOverlay(ctx, projectId, input.expectedRevision)

  if (input.colours !== undefined) await storeColours(ctx, projectId, input.colours)
  for (const sheet of sheets) {
    const values = { pinning: sheet.pinning, scale: sheet.scale, rotation: sheet.rotation, updatedAt: ctx.now }
    await ctx.tx
      .insert(drawingSheets)
      .values({ tenantId: ctx.actor.tenantId, documentId: sheet.documentId, projectId, ...values, createdAt: ctx.now })
      .onConflictDoUpdate({ target: [drawingSheets.tenantId, drawingSheets.documentId], set: values })
  }
  await recordDocumentAudit(ctx, 'documents.overlay.changed', 'DrawingOverlay', projectId, { projectId, colours: input.colours, sheets })
  return getProjectOverlay(ctx, projectId)
}

/** GET /api/projects/{projectId}/drawings: the project's drawings the caller may see, for pinning. */
export async function projectDrawings(ctx: DomainContext, projectId: string): Promise<ProjectDrawings> {
  await findProject(ctx, projectId)
  const entries = await actorEntries(ctx, projectId)
  const visible = visibleCondition(ctx.actor, entries, { documentId: sql`${documents.id}`, projectId: sql`${documents.projectId}`, folderPath: sql`${documentFolders.path}` })
  const { colours } = await coloursOf(ctx, projectId)
  return { projectId, colours, items: await drawingsOf(ctx, projectId, visible) }
}

/** A document's sheet settings (defaults without a row). */
export async function sheetSettingsOf(ctx: DomainContext, documentId: string): Promise<{ pinning: boolean; scale: string | null; rotation: SheetRotation }> {
  const [row] = await ctx.tx
    .select({ pinning: drawingSheets.pinning, scale: drawingSheets.scale, rotation: drawingSheets.rotation })
    .from(drawingSheets)
    .where(and(eq(drawingSheets.tenantId, ctx.actor.tenantId), eq(drawingSheets.documentId, documentId)))
    .limit(1)
  return { pinning: row?.pinning ?? true, scale: row?.scale ?? null, rotation: rotationOf(row?.rotation) }
}

export type RevisionSheet = { id: string; documentId: string; code: string; sheet: { width: number; height: number } | null; supersededAt: Date | null; supersededById: string | null }

/** Revisions by id with their sheet's size when they have one (one query). */
export async function revisionSheets(ctx: DomainContext, revisionIds: ReadonlyArray<string | null>): Promise<Map<string, RevisionSheet>> {
  const ids = [...new Set(revisionIds.filter((id): id is string => id !== null))]
  if (ids.length === 0) return new Map()
  const rows = await ctx.tx
    .select({
      id: documentRevisions.id,
      documentId: documentRevisions.documentId,
      code: documentRevisions.code,
      width: documentRevisions.sheetWidth,
      height: documentRevisions.sheetHeight,
      sheetKey: documentRevisions.sheetKey,
      supersededAt: documentRevisions.supersededAt,
      supersededById: documentRevisions.supersededById,
    })
    .from(documentRevisions)
    .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), inArray(documentRevisions.id, ids)))
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        documentId: row.documentId,
        code: row.code,
        sheet: row.sheetKey && row.width && row.height ? { width: row.width, height: row.height } : null,
        supersededAt: row.supersededAt,
        supersededById: row.supersededById,
      },
    ]),
  )
}
