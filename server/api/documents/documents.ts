import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { createDocument, DOCUMENT_TITLE_MAX, getDocument, putDocumentMetadata, updateDocument, validateProposal } from '#server/domain/documents/documents'
import { createFolder, FOLDER_NAME_MAX, folderTree, getFolder, MAX_FOLDER_DEPTH, updateFolder } from '#server/domain/documents/folders'
import { getMetadataFields, getNamingStandard, putMetadataFields, putNamingStandard } from '#server/domain/documents/naming'
import { getPermissions, putPermissions } from '#server/domain/documents/permissions'
import { renumberDocument } from '#server/domain/documents/renumber'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { requireSession } from '#server/http/session'
import { PERMISSION_LEVELS, type PermissionTarget } from '~/lib/documents/types'
import {
  DocumentSchema,
  DocumentTreeSchema,
  FolderSchema,
  MetadataFieldListSchema,
  NamingStandardSchema,
  PermissionsSchema as PermissionsAnswer,
  ValidationResultSchema,
} from '~/lib/schemas/documents-responses'
import { RenumberAnswerSchema, RenumberSchema } from '~/lib/schemas/rule-book'
import { expectedRevision, STALE_WRITE } from '~/lib/schemas/edit-conflict'

/** docs/documents.md: folders, the tree, documents, their metadata, naming standards and permissions. */

function run<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

const folderName = z
  .string({ error: 'Give the folder a name.' })
  .trim()
  .min(1, 'Give the folder a name.')
  .max(FOLDER_NAME_MAX, `A folder name must be at most ${FOLDER_NAME_MAX} characters.`)
const folderRef = z.preprocess((v) => (v === '' ? null : v), z.string({ error: 'Choose a folder.' }).max(64, 'Choose a folder.').nullable())

const NewFolderSchema = z.object({ name: folderName, parentId: folderRef.optional().transform((v) => v ?? null) })
const FolderPatchSchema = z.object({ name: folderName.optional(), parentId: folderRef.optional(), expectedRevision })

const TreeQuery = z.object({
  folderId: z.string().max(64).optional(),
  depth: z
    .union([z.literal('all'), z.coerce.number({ error: 'depth is 1 or more, or all.' }).int('depth is a whole number.').min(1, 'depth is 1 or more, or all.')], {
      error: 'depth is 1 or more, or all.',
    })
    .optional()
    .transform((v) => (v === undefined ? 1 : v === 'all' ? MAX_FOLDER_DEPTH : Math.min(v, MAX_FOLDER_DEPTH))),
})

const numberField = z.string({ error: 'Give the document number.' }).max(100, 'A document number is at most 100 characters.')
const titleField = z.string({ error: 'Give the document a title.' }).trim().max(DOCUMENT_TITLE_MAX, `The title must be at most ${DOCUMENT_TITLE_MAX} characters.`)
const metadataValues = z.record(z.string().max(64), z.union([z.string().max(2000), z.number(), z.null()]), { error: 'metadata must be an object of field values.' })

export const NewDocumentSchema = z.object({
  number: numberField,
  title: titleField,
  folderId: folderRef.optional().transform((v) => v ?? null),
  metadata: metadataValues.optional().transform((v) => v ?? {}),
})
const DocumentPatchSchema = z.object({
  number: numberField.optional(),
  title: titleField.optional(),
  folderId: folderRef.optional(),
  archived: z.boolean({ error: 'archived is true or false.' }).optional(),
  expectedRevision,
})
const MetadataSchema = z.object({ values: metadataValues, expectedRevision })
const ValidateSchema = z.object({ number: numberField.optional(), metadata: metadataValues.optional(), documentId: z.uuid({ error: 'documentId must be a document id.' }).optional() })

const codeList = z
  .array(
    z.object({
      code: z.string({ error: 'Give the code.' }).trim().toUpperCase().min(1, 'Give the code.').max(6),
      description: z.string().trim().max(120, 'Use at most 120 characters.'),
    }),
  )
  .max(500, 'At most 500 codes per field.')
const NamingSchema = z.object({
  fields: z
    .array(
      z.object({
        key: z
          .string()
          .trim()
          .regex(/^[a-z][a-z0-9-]{0,31}$/, 'A key is lower-case letters, digits and dashes.'),
        label: z.string().trim().min(1, 'Give the field a label.').max(60),
        minLength: z.number().int().min(1).max(12),
        maxLength: z.number().int().min(1).max(12),
        charset: z.enum(['alphanumeric', 'digits'], { error: 'charset is alphanumeric or digits.' }),
        codes: codeList.nullable(),
      }),
    )
    .min(2, 'A container name has at least two fields.')
    .max(12, 'A container name has at most twelve fields.'),
  expectedRevision,
})
const MetadataFieldsSchema = z.object({
  fields: z
    .array(
      z.object({
        key: z
          .string()
          .trim()
          .regex(/^[a-z][a-z0-9-]{0,31}$/, 'A key is lower-case letters, digits and dashes, starting with a letter.'),
        label: z.string().trim().min(1, 'Give the field a label.').max(60, 'A label is at most 60 characters.'),
        kind: z.enum(['text', 'choice', 'date', 'number'], { error: 'kind is text, choice, date or number.' }),
        required: z.boolean().optional().default(false),
        options: z.array(z.string().trim().min(1).max(100)).max(100).optional().default([]),
      }),
    )
    .max(50, 'At most 50 fields per project.'),
  expectedRevision,
})
const PermissionsSchema = z.object({
  entries: z
    .array(
      z.object({
        subjectKind: z.enum(['user', 'role'], { error: 'subjectKind is user or role.' }),
        subject: z.string({ error: 'Choose a person or a role.' }).max(64),
        level: z.enum(PERMISSION_LEVELS, { error: 'level is none, view, upload, edit or manage.' }),
      }),
    )
    .max(200, 'At most 200 entries in one place.'),
  expectedRevision,
})

function permissionRoutes(app: Hono<BackendEnv>, path: string, target: PermissionTarget, tag: string) {
  return app
    .get(
      path,
      operation({
        summary: `Permission entries on a ${target}`,
        tag,
        access: 'session',
        responses: { 200: { description: 'The entries set here and what applies from above.', schema: PermissionsAnswer }, 403: 'Not a manager here.', 404: `No such ${target}.` },
      }),
      async (c) => c.json(await run(c, (ctx) => getPermissions(ctx, target, c.req.param('id') as string))),
    )
    .put(
      path,
      operation({
        summary: `Replace the permission entries on a ${target}`,
        tag,
        access: 'session',
        body: PermissionsSchema,
        responses: { 200: { description: 'The entries now.', schema: PermissionsAnswer }, 400: 'Entries with problems.', 403: 'Not a manager here.', 404: `No such ${target}.`, 409: STALE_WRITE },
      }),
      async (c) => {
        const { entries, expectedRevision } = c.req.valid('json')
        return c.json(await run(c, (ctx) => putPermissions(ctx, target, c.req.param('id') as string, entries, expectedRevision)))
      },
    )
}

const base = new Hono<BackendEnv>()
  .get(
    '/api/projects/:id/documents/tree',
    operation({
      summary: 'A project’s folder tree: one level or a subtree, with counts',
      tag: 'Documents',
      access: 'session',
      query: TreeQuery,
      responses: { 200: { description: 'The folders under the starting folder.', schema: DocumentTreeSchema }, 404: 'No such project or folder.' },
    }),
    async (c) => {
      const query = c.req.valid('query')
      const tree = await run(c, (ctx) => folderTree(ctx, c.req.param('id'), { folderId: query.folderId, depth: query.depth }))
      return c.json({ projectId: c.req.param('id'), ...tree })
    },
  )
  .post(
    '/api/projects/:id/folders',
    operation({
      summary: 'Create a folder',
      tag: 'Documents',
      access: 'session',
      body: NewFolderSchema,
      responses: { 201: { description: 'The folder.', schema: FolderSchema }, 400: 'Invalid name or parent.', 403: 'No edit right here.', 404: 'No such project.', 409: 'The name is taken here.' },
    }),
    async (c) => c.json(await run(c, (ctx) => createFolder(ctx, c.req.param('id'), c.req.valid('json'))), 201),
  )
  .get(
    '/api/folders/:id',
    operation({ summary: 'One folder with its breadcrumbs', tag: 'Documents', access: 'session', responses: { 200: { description: 'The folder.', schema: FolderSchema }, 404: 'No such folder.' } }),
    async (c) => c.json(await run(c, (ctx) => getFolder(ctx, c.req.param('id')))),
  )
  .patch(
    '/api/folders/:id',
    operation({
      summary: 'Rename or move a folder',
      tag: 'Documents',
      access: 'session',
      body: FolderPatchSchema,
      responses: {
        200: { description: 'The folder.', schema: FolderSchema },
        400: 'Invalid name or parent.',
        403: 'Not a manager here.',
        404: 'No such folder.',
        409: `The name is taken, or the move would make a cycle. ${STALE_WRITE}`,
      },
    }),
    async (c) => c.json(await run(c, (ctx) => updateFolder(ctx, c.req.param('id'), c.req.valid('json')))),
  )
  .post(
    '/api/projects/:id/documents',
    operation({
      summary: 'Create a document (no revision yet)',
      tag: 'Documents',
      access: 'session',
      body: NewDocumentSchema,
      responses: { 201: { description: 'The document.', schema: DocumentSchema }, 400: 'Every problem of the number, title and metadata.', 403: 'No upload right here.', 404: 'No such project.', 409: 'The project is archived (KR_ARCHIVED).' },
    }),
    async (c) => c.json(await run(c, (ctx) => createDocument(ctx, c.req.param('id'), c.req.valid('json'))), 201),
  )
  .post(
    '/api/projects/:id/documents/validate',
    operation({
      summary: 'Check a proposed number and metadata',
      tag: 'Documents',
      access: 'session',
      body: ValidateSchema,
      responses: { 200: { description: 'valid, and every problem as field errors.', schema: ValidationResultSchema }, 404: 'No such project.' },
    }),
    async (c) => c.json(await run(c, (ctx) => validateProposal(ctx, c.req.param('id'), c.req.valid('json')))),
  )
  .get(
    '/api/documents/:id',
    operation({ summary: 'One document with its revisions', tag: 'Documents', access: 'session', responses: { 200: { description: 'The document.', schema: DocumentSchema }, 404: 'No such document.' } }),
    async (c) => c.json(await run(c, (ctx) => getDocument(ctx, c.req.param('id')))),
  )
  .patch(
    '/api/documents/:id',
    operation({
      summary: 'Change a document’s number, title or folder; archive it',
      tag: 'Documents',
      access: 'session',
      body: DocumentPatchSchema,
      responses: {
        200: { description: 'The document.', schema: DocumentSchema },
        400: 'Every problem.',
        403: 'No right to this change.',
        404: 'No such document.',
        409: `Archived; or a new number for a published or sent document (KR_DOCUMENT_LOCKED, a field error on number: use renumber). ${STALE_WRITE}`,
      },
    }),
    async (c) => c.json(await run(c, (ctx) => updateDocument(ctx, c.req.param('id'), c.req.valid('json')))),
  )
  .post(
    '/api/documents/:id/renumber',
    operation({
      summary: 'Renumber a document (its number, and so its discipline and type), with a reason',
      description:
        'The one way to change the number of a published or sent document (the rule book, docs/doc-control.md). A document controller (manage on the document) or an administrator; audited, kept in the document’s renumbers, and everyone who received it by transmittal gets a mail through the outbox (`told`).',
      tag: 'Documents',
      access: 'session',
      body: RenumberSchema,
      responses: {
        200: { description: 'The document as it is now, and how many recipients have a mail queued.', schema: RenumberAnswerSchema },
        400: 'Every problem of the number and the reason, as field errors.',
        403: 'Not a document controller here (read-write and read-only members).',
        404: 'No such document.',
        409: 'Archived.',
      },
    }),
    async (c) => {
      const { publicUrl } = c.get('deps').config
      return c.json(await run(c, (ctx) => renumberDocument(ctx, c.req.param('id'), c.req.valid('json'), { publicUrl })))
    },
  )
  .put(
    '/api/documents/:id/metadata',
    operation({
      summary: 'Replace a document’s metadata values',
      tag: 'Documents',
      access: 'session',
      body: MetadataSchema,
      responses: { 200: { description: 'The document.', schema: DocumentSchema }, 400: 'Every problem, per field.', 403: 'No edit right.', 404: 'No such document.', 409: `The document or its project is archived. ${STALE_WRITE}` },
    }),
    async (c) => {
      const { values, expectedRevision } = c.req.valid('json')
      return c.json(await run(c, (ctx) => putDocumentMetadata(ctx, c.req.param('id'), values, expectedRevision)))
    },
  )
  .get(
    '/api/projects/:id/naming-standard',
    operation({ summary: 'A project’s naming standard', tag: 'Documents', access: 'session', responses: { 200: { description: 'Its fields and codes.', schema: NamingStandardSchema }, 404: 'No such project.' } }),
    async (c) => c.json(await run(c, (ctx) => getNamingStandard(ctx, c.req.param('id')))),
  )
  .put(
    '/api/projects/:id/naming-standard',
    operation({
      summary: 'Replace a project’s naming standard',
      tag: 'Documents',
      access: 'session',
      body: NamingSchema,
      responses: { 200: { description: 'The standard.', schema: NamingStandardSchema }, 400: 'Problems.', 403: 'Not a manager.', 404: 'No such project.', 409: STALE_WRITE },
    }),
    async (c) => {
      const { fields, expectedRevision } = c.req.valid('json')
      return c.json(await run(c, (ctx) => putNamingStandard(ctx, c.req.param('id'), fields, expectedRevision)))
    },
  )
  .get(
    '/api/projects/:id/metadata-fields',
    operation({ summary: 'A project’s document metadata fields', tag: 'Documents', access: 'session', responses: { 200: { description: 'The fields, in order.', schema: MetadataFieldListSchema }, 404: 'No such project.' } }),
    async (c) => c.json(await run(c, (ctx) => getMetadataFields(ctx, c.req.param('id')))),
  )
  .put(
    '/api/projects/:id/metadata-fields',
    operation({
      summary: 'Replace a project’s document metadata fields',
      tag: 'Documents',
      access: 'session',
      body: MetadataFieldsSchema,
      responses: { 200: { description: 'The fields.', schema: MetadataFieldListSchema }, 400: 'Problems.', 403: 'Not a manager.', 404: 'No such project.', 409: STALE_WRITE },
    }),
    async (c) => {
      const { fields, expectedRevision } = c.req.valid('json')
      return c.json(await run(c, (ctx) => putMetadataFields(ctx, c.req.param('id'), fields, expectedRevision)))
    },
  )

permissionRoutes(base, '/api/projects/:id/permissions', 'project', 'Documents')
permissionRoutes(base, '/api/folders/:id/permissions', 'folder', 'Documents')
permissionRoutes(base, '/api/documents/:id/permissions', 'document', 'Documents')

export const documentsRoutes = base
