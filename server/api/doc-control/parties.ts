import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { getMatrix, putMatrix } from '#server/domain/doc-control/matrix'
import { addPartyContact, createParty, deleteParty, listParties, PARTY_CODE, PARTY_NAME_MAX, putPartyMembers, removePartyContact, updateParty } from '#server/domain/doc-control/parties'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { operation } from '#server/http/contract'
import { PartyListSchema, PartySchema, ResponsibilityMatrixSchema } from '~/lib/schemas/doc-control-responses'
import type { BackendEnv } from '#server/http/env'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { PARTY_ROLES, RESPONSIBILITIES } from '~/lib/doc-control/types'
import { PartyContactSchema } from '~/lib/schemas/doc-control'
import { expectedRevision, STALE_WRITE } from '~/lib/schemas/edit-conflict'

/** docs/doc-control.md "Parties, matrix, deliverables, dashboard": a project's parties, their people, and the responsibility matrix. */

function run<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

const id = z.string().max(64)
const nullableId = z.preprocess((v) => (v === '' ? null : v), id.nullable())
const partyName = z.string({ error: 'Give the party a name.' }).trim().min(1, 'Give the party a name.').max(PARTY_NAME_MAX, `A party name is at most ${PARTY_NAME_MAX} characters.`)
const partyCode = z.preprocess(
  (v) => (typeof v === 'string' ? (v.trim() === '' ? null : v.trim().toUpperCase()) : v),
  z.string({ error: 'The code is text.' }).regex(PARTY_CODE, 'An originator code is 3 to 6 capital letters or digits, e.g. ARC.').nullable(),
)
const partyRole = z.enum(PARTY_ROLES, { error: 'role is appointing, lead-appointed or task-team.' })

const NewPartySchema = z.object({
  name: partyName,
  code: partyCode.optional().transform((v) => v ?? null),
  role: partyRole,
  parentId: nullableId.optional().transform((v) => v ?? null),
})
const PartyPatchSchema = z.object({ name: partyName.optional(), code: partyCode.optional(), role: partyRole.optional(), parentId: nullableId.optional(), expectedRevision })
const MembersSchema = z.object({
  members: z
    .array(z.object({ userId: id, lead: z.boolean({ error: 'lead is true or false.' }).optional().default(false) }), { error: 'members is a list.' })
    .max(500, 'At most 500 people in a party.'),
  expectedRevision,
})
const MatrixSchema = z.object({
  entries: z
    .array(
      z.object({
        discipline: z.string({ error: 'Give the discipline (its Role code).' }).trim().toUpperCase().min(1, 'Give the discipline (its Role code).').max(6),
        docType: z.preprocess((v) => (v === '' || v === undefined ? null : v), z.string().trim().toUpperCase().max(6).nullable()),
        partyId: id,
        responsibility: z.enum(RESPONSIBILITIES, { error: 'responsibility is produce or review.' }),
      }),
      { error: 'entries is a list.' },
    )
    .max(5000, 'At most 5000 entries.'),
  expectedRevision,
})

export const partyRoutes = new Hono<BackendEnv>()
  .get(
    '/api/projects/:id/parties',
    operation({
      summary: 'The parties of a project with their people',
      tag: 'Document control',
      access: 'session',
      responses: { 200: { description: 'The project’s parties.', schema: PartyListSchema }, 404: 'No such project.' },
    }),
    async (c) => c.json(await run(c, (ctx) => listParties(ctx, c.req.param('id')))),
  )
  .post(
    '/api/projects/:id/parties',
    operation({
      summary: 'Add a party to a project',
      tag: 'Document control',
      access: 'session',
      body: NewPartySchema,
      idempotent: true,
      responses: { 201: { description: 'The party.', schema: PartySchema }, 400: 'Every problem of its fields.', 403: 'Not a manager of the project.', 404: 'No such project.', 409: 'The project is archived.' },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx) => createParty(ctx, c.req.param('id'), c.req.valid('json'))), 201),
  )
  .patch(
    '/api/parties/:id',
    operation({
      summary: 'Change a party',
      tag: 'Document control',
      access: 'session',
      body: PartyPatchSchema,
      responses: { 200: { description: 'The party.', schema: PartySchema }, 400: 'Every problem of its fields.', 403: 'Not a manager of the project.', 404: 'No such party.', 409: STALE_WRITE },
    }),
    async (c) => c.json(await run(c, (ctx) => updateParty(ctx, c.req.param('id'), c.req.valid('json')))),
  )
  .delete(
    '/api/parties/:id',
    operation({
      summary: 'Remove a party (its people and matrix cells go with it)',
      tag: 'Document control',
      access: 'session',
      responses: { 204: 'Removed.', 403: 'Not a manager of the project.', 404: 'No such party.', 409: 'Task teams work under it.' },
    }),
    async (c) => {
      await run(c, (ctx) => deleteParty(ctx, c.req.param('id')))
      return c.body(null, 204)
    },
  )
  .put(
    '/api/parties/:id/members',
    operation({
      summary: 'Replace the people of a party',
      tag: 'Document control',
      access: 'session',
      body: MembersSchema,
      responses: {
        200: { description: 'The party.', schema: PartySchema },
        403: 'Not a manager of the project.',
        404: 'No such party, or a person who is not a member of the organisation.',
        409: STALE_WRITE,
      },
    }),
    async (c) => {
      const { members, expectedRevision } = c.req.valid('json')
      return c.json(await run(c, (ctx) => putPartyMembers(ctx, c.req.param('id'), members, expectedRevision)))
    },
  )
  .post(
    '/api/parties/:id/contacts',
    operation({
      summary: 'Add an outside contact (name, company, e-mail) to a party: no member, no seat',
      description: 'Transmittals to the party reach outside contacts by a signed link in a mail (docs/doc-control.md "Outside contacts").',
      tag: 'Document control',
      access: 'session',
      body: PartyContactSchema,
      idempotent: true,
      responses: {
        201: { description: 'The party.', schema: PartySchema },
        400: 'Every problem of its fields (an e-mail already a contact of the party).',
        403: 'Not a manager of the project.',
        404: 'No such party.',
        409: 'The project is archived.',
      },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx) => addPartyContact(ctx, c.req.param('id'), c.req.valid('json'))), 201),
  )
  .delete(
    '/api/parties/:id/contacts/:contactId',
    operation({
      summary: 'Remove an outside contact from a party (links already sent keep working until they expire or are revoked)',
      tag: 'Document control',
      access: 'session',
      responses: { 200: { description: 'The party.', schema: PartySchema }, 403: 'Not a manager of the project.', 404: 'No such party or contact.', 409: 'The project is archived.' },
    }),
    async (c) => c.json(await run(c, (ctx) => removePartyContact(ctx, c.req.param('id'), c.req.param('contactId')))),
  )
  .get(
    '/api/projects/:id/matrix',
    operation({
      summary: 'The responsibility matrix of a project, with its discipline and type codes',
      tag: 'Document control',
      access: 'session',
      responses: { 200: { description: 'The responsibility matrix.', schema: ResponsibilityMatrixSchema }, 404: 'No such project.' },
    }),
    async (c) => c.json(await run(c, (ctx) => getMatrix(ctx, c.req.param('id')))),
  )
  .put(
    '/api/projects/:id/matrix',
    operation({
      summary: 'Replace the responsibility matrix of a project',
      tag: 'Document control',
      access: 'session',
      body: MatrixSchema,
      responses: {
        200: { description: 'The responsibility matrix.', schema: ResponsibilityMatrixSchema },
        400: 'A discipline or type the naming standard does not list.',
        403: 'Not a manager of the project.',
        404: 'No such project or party.',
        409: STALE_WRITE,
      },
    }),
    async (c) => {
      const { entries, expectedRevision } = c.req.valid('json')
      return c.json(await run(c, (ctx) => putMatrix(ctx, c.req.param('id'), entries, expectedRevision)))
    },
  )
