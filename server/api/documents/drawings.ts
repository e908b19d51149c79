import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { getOrganisationOverlay, getProjectOverlay, projectDrawings, putOrganisationOverlay, putProjectOverlay, SHEET_SCALE_MAX } from '#server/domain/documents/drawings'
import { confirmItemPin, documentPins, getDrawingView, getItemPin, placeItemPin, removeItemPin } from '#server/domain/documents/pins'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { requireSession } from '#server/http/session'
import { DrawingOverlaySchema, DrawingViewSchema, ItemPinSchema, PinListSchema, ProjectDrawingsSchema } from '~/lib/schemas/documents-responses'
import { expectedRevision, STALE_WRITE } from '~/lib/schemas/edit-conflict'

/** docs/documents.md "Drawings and pins": item pins, a drawing's sheet and pins, the drawings overlay. */

function run<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

const COLOUR_MESSAGE = 'A colour is # and six hex digits, e.g. #D92D20.'
const colour = z
  .string({ error: COLOUR_MESSAGE })
  .trim()
  .regex(/^#[0-9a-fA-F]{6}$/, COLOUR_MESSAGE)
  .transform((value) => value.toUpperCase())
const ColoursSchema = z.object(
  { open: colour, close_requested: colour, closed: colour },
  { error: 'colours has a colour for each item status: open, close_requested and closed.' },
)

const OrganisationOverlaySchema = z.object({ colours: ColoursSchema, expectedRevision })

const SheetSettingSchema = z.object({
  documentId: z.string({ error: 'Choose a drawing.' }).max(64, 'Choose a drawing.'),
  pinning: z.boolean({ error: 'pinning is true or false.' }),
  scale: z
    .string({ error: 'A scale is text, e.g. 1:100.' })
    .trim()
    .max(SHEET_SCALE_MAX, `A scale is at most ${SHEET_SCALE_MAX} characters, e.g. 1:100.`)
    .nullable()
    .optional()
    .transform((value) => (value ? value : null)),
  rotation: z.union([z.literal(0), z.literal(90), z.literal(180), z.literal(270)], { error: 'rotation is 0, 90, 180 or 270 degrees.' }),
})

const ProjectOverlaySchema = z.object({
  /** null: use the organisation's; absent: keep what the project has. */
  colours: ColoursSchema.nullable().optional(),
  sheets: z.array(SheetSettingSchema, { error: 'sheets is a list of sheet settings.' }).max(500, 'At most 500 sheets at once.').optional(),
  expectedRevision,
})

const fraction = (message: string) => z.number({ error: message }).min(0, message).max(1, message)
const PinSchema = z.object({
  documentId: z.string({ error: 'Choose a drawing.' }).max(64, 'Choose a drawing.'),
  x: fraction('x is a fraction of the sheet’s width, from 0 (left) to 1 (right).'),
  y: fraction('y is a fraction of the sheet’s height, from 0 (top) to 1 (bottom).'),
  expectedRevision,
})

const DrawingQuery = z.object({ revisionId: z.string().max(64, 'revisionId is a revision of this document.').optional() })

const ADMIN_ONLY = 'Not an administrator of the organisation.'

export const drawingRoutes = new Hono<BackendEnv>()
  .get(
    '/api/items/:id/pin',
    operation({
      summary: 'Where an item is pinned on a drawing',
      tag: 'Drawings',
      access: 'session',
      responses: { 200: { description: 'The pin, with its drawing’s sheet.', schema: ItemPinSchema }, 404: 'No such item, or it is not pinned (on a drawing the caller may see).' },
    }),
    async (c) => c.json(await run(c, (ctx) => getItemPin(ctx, c.req.param('id')))),
  )
  .put(
    '/api/items/:id/pin',
    operation({
      summary: 'Pin an item on the current revision of a drawing of its project, or move its pin',
      tag: 'Drawings',
      access: 'session',
      body: PinSchema,
      responses: {
        200: { description: 'The pin.', schema: ItemPinSchema },
        400: 'A drawing that takes no pin (another project’s, no sheet, pinning off), or a point off the sheet.',
        403: 'No right to edit items.',
        404: 'No such item or drawing.',
        409: STALE_WRITE,
      },
    }),
    async (c) => c.json(await run(c, (ctx) => placeItemPin(ctx, c.req.param('id'), c.req.valid('json')))),
  )
  .delete(
    '/api/items/:id/pin',
    operation({
      summary: 'Remove an item’s pin',
      tag: 'Drawings',
      access: 'session',
      responses: { 204: 'Removed.', 403: 'No right to edit items.', 404: 'No such item, or it is not pinned.' },
    }),
    async (c) => {
      await run(c, (ctx) => removeItemPin(ctx, c.req.param('id')))
      return c.body(null, 204)
    },
  )
  .post(
    '/api/items/:id/pin/confirm',
    operation({
      summary: 'Confirm a pin that moved to a new revision is still in the right place',
      tag: 'Drawings',
      access: 'session',
      responses: { 200: { description: 'The pin, no longer flagged for review.', schema: ItemPinSchema }, 403: 'No right to edit items.', 404: 'No such item, or it is not pinned.' },
    }),
    async (c) => c.json(await run(c, (ctx) => confirmItemPin(ctx, c.req.param('id')))),
  )
  .get(
    '/api/documents/:id/pins',
    operation({
      summary: 'The pins on a drawing’s current revision',
      tag: 'Drawings',
      access: 'session',
      responses: { 200: { description: 'The pins, by item number.', schema: PinListSchema }, 404: 'No such document.' },
    }),
    async (c) => c.json({ items: await run(c, (ctx) => documentPins(ctx, c.req.param('id'))) }),
  )
  .get(
    '/api/documents/:id/drawing',
    operation({
      summary: 'A drawing’s sheet (the current revision, or the one asked for) with its settings, colours and pins',
      tag: 'Drawings',
      access: 'session',
      query: DrawingQuery,
      responses: { 200: { description: 'The sheet; pins only on the current revision.', schema: DrawingViewSchema }, 404: 'No such document, revision or sheet.' },
    }),
    async (c) => c.json(await run(c, (ctx) => getDrawingView(ctx, c.req.param('id'), c.req.valid('query').revisionId))),
  )
  .get(
    '/api/projects/:id/drawings',
    operation({
      summary: 'A project’s drawings: its documents whose current revision is a sheet',
      tag: 'Drawings',
      access: 'session',
      responses: { 200: { description: 'The drawings the caller may see, with their settings and the project’s pin colours.', schema: ProjectDrawingsSchema }, 404: 'No such project.' },
    }),
    async (c) => c.json(await run(c, (ctx) => projectDrawings(ctx, c.req.param('id')))),
  )
  .get(
    '/api/admin/drawings-overlay',
    operation({
      summary: 'The organisation’s pin colours by item status',
      tag: 'Drawings',
      access: 'session',
      responses: { 200: { description: 'The organisation’s overlay.', schema: DrawingOverlaySchema }, 403: ADMIN_ONLY },
    }),
    async (c) => c.json(await run(c, (ctx) => getOrganisationOverlay(ctx))),
  )
  .put(
    '/api/admin/drawings-overlay',
    operation({
      summary: 'Set the organisation’s pin colours',
      tag: 'Drawings',
      access: 'session',
      body: OrganisationOverlaySchema,
      responses: { 200: { description: 'The organisation’s overlay.', schema: DrawingOverlaySchema }, 400: 'A colour that is not #RRGGBB.', 403: ADMIN_ONLY, 409: STALE_WRITE },
    }),
    async (c) => {
      const { colours, expectedRevision } = c.req.valid('json')
      return c.json(await run(c, (ctx) => putOrganisationOverlay(ctx, colours, expectedRevision)))
    },
  )
  .get(
    '/api/admin/projects/:id/drawings-overlay',
    operation({
      summary: 'A project’s pin colours (its own or the organisation’s) and its sheets',
      tag: 'Drawings',
      access: 'session',
      responses: { 200: { description: 'The project’s overlay.', schema: DrawingOverlaySchema }, 403: ADMIN_ONLY, 404: 'No such project.' },
    }),
    async (c) => c.json(await run(c, (ctx) => getProjectOverlay(ctx, c.req.param('id')))),
  )
  .put(
    '/api/admin/projects/:id/drawings-overlay',
    operation({
      summary: 'Set a project’s pin colours (null: the organisation’s) and its sheets’ pinning, scale and rotation',
      tag: 'Drawings',
      access: 'session',
      body: ProjectOverlaySchema,
      responses: { 200: { description: 'The project’s overlay.', schema: DrawingOverlaySchema }, 400: 'Every problem, by field.', 403: ADMIN_ONLY, 404: 'No such project.', 409: STALE_WRITE },
    }),
    async (c) => c.json(await run(c, (ctx) => putProjectOverlay(ctx, c.req.param('id'), c.req.valid('json')))),
  )
