import { z } from 'zod'
import {
  CDE_STATES,
  PERMISSION_LEVELS,
  PERMISSION_TARGETS,
  type Breadcrumb,
  type DocumentDetail,
  type DocumentSummary,
  type DocumentTree,
  type DrawingOverlay,
  type DrawingSheet,
  type DrawingView,
  type Folder,
  type FolderNode,
  type ItemPin,
  type MetadataField,
  type NamingStandard,
  type Permissions,
  type Pin,
  type PinColours,
  type ProjectDrawings,
  type SearchPage,
  type SheetImage,
  type ValidationResult,
} from '~/lib/documents/types'
import { RevisionSchema } from './photos-responses'
import { listOf, UserRefSchema } from './reporting-responses'
import { recordRevision } from './edit-conflict'

/**
 * The document calls' answers (docs/documents.md), as published in /api/openapi.json (named
 * components) and checked against every answer in the tests (schema incidents). They mirror
 * app/lib/documents/types.ts; `satisfies` keeps the two together.
 */

const utc = z.iso.datetime().describe('ISO 8601, UTC.')
const count = z.number().int().min(0)
const hex = z.string().regex(/^#[0-9A-Fa-f]{6}$/)
const level = z.enum(PERMISSION_LEVELS)
const revisionRef = z.object({ id: z.uuid(), code: z.string() })

export const BreadcrumbSchema = z.object({ id: z.uuid(), name: z.string() }).meta({ id: 'Breadcrumb' }) satisfies z.ZodType<Breadcrumb>

export const FolderSchema = z
  .object({
    id: z.uuid(),
    projectId: z.uuid(),
    parentId: z.uuid().nullable(),
    name: z.string(),
    restricted: z.literal(true).optional().describe('The caller may not view this folder, only what lies below it.'),
    breadcrumbs: z.array(BreadcrumbSchema),
    folderCount: count,
    documentCount: count,
    revision: recordRevision,
    createdAtUtc: utc,
    updatedAtUtc: utc,
  })
  .meta({ id: 'Folder' }) satisfies z.ZodType<Folder>

export const FolderNodeSchema: z.ZodType<FolderNode> = FolderSchema.extend({
  get children() {
    return z.array(FolderNodeSchema).optional()
  },
}).meta({ id: 'FolderNode' })

export const DocumentTreeSchema = z.object({
  projectId: z.uuid(),
  folder: FolderSchema.nullable(),
  folders: z.array(FolderNodeSchema),
  access: level,
}) satisfies z.ZodType<DocumentTree>

const summaryFields = {
  id: z.uuid(),
  projectId: z.uuid(),
  folderId: z.uuid().nullable(),
  number: z.string(),
  title: z.string(),
  discipline: z.string(),
  docType: z.string(),
  status: z.string(),
  state: z.enum(CDE_STATES),
  currentRevision: z.object({ id: z.uuid(), code: z.string(), status: z.string(), issuedAtUtc: utc }).nullable(),
  updatedAtUtc: utc,
}

export const DocumentSummarySchema = z.object(summaryFields).meta({ id: 'DocumentSummary' }) satisfies z.ZodType<DocumentSummary>

export const DocumentSchema = z
  .object({
    ...summaryFields,
    metadata: z.record(z.string(), z.union([z.string(), z.number()])),
    breadcrumbs: z.array(BreadcrumbSchema),
    revisions: z.array(RevisionSchema),
    createdBy: UserRefSchema.nullable(),
    createdAtUtc: utc,
    access: level,
    revision: z.number().int().min(0),
    numberLocked: z.boolean().describe('Published or sent: number, discipline and type change only by renumbering (docs/doc-control.md "The rule book").'),
    renumbers: z.array(z.object({ atUtc: utc, by: UserRefSchema.nullable(), from: z.string(), to: z.string(), reason: z.string(), told: count })),
  })
  .meta({ id: 'Document' }) satisfies z.ZodType<DocumentDetail>

export const SearchPageSchema = z.object({ items: z.array(DocumentSummarySchema), total: count, page: z.number().int().min(1), pageSize: z.number().int().min(1) }) satisfies z.ZodType<SearchPage>

const permissionEntry = z.object({ subjectKind: z.enum(['user', 'role']), subject: z.string(), subjectName: z.string(), level })

export const PermissionsSchema = z
  .object({ target: z.enum(PERMISSION_TARGETS), targetId: z.uuid(), entries: z.array(permissionEntry), inherited: z.array(permissionEntry), revision: recordRevision })
  .meta({ id: 'Permissions' }) satisfies z.ZodType<Permissions>

export const ValidationResultSchema = z.object({
  valid: z.boolean(),
  errors: z.record(z.string(), z.array(z.string())),
  parsed: z.record(z.string(), z.string()).nullable(),
}) satisfies z.ZodType<ValidationResult>

export const NamingStandardSchema = z
  .object({
    projectId: z.uuid(),
    fields: z.array(
      z.object({
        key: z.string(),
        label: z.string(),
        minLength: z.number().int(),
        maxLength: z.number().int(),
        charset: z.enum(['alphanumeric', 'digits']),
        codes: z.array(z.object({ code: z.string(), description: z.string() })).nullable(),
      }),
    ),
    example: z.string(),
    updatedAtUtc: utc.nullable(),
    revision: recordRevision,
  })
  .meta({ id: 'NamingStandard' }) satisfies z.ZodType<NamingStandard>

export const MetadataFieldSchema = z
  .object({ key: z.string(), label: z.string(), kind: z.enum(['text', 'choice', 'date', 'number']), required: z.boolean(), options: z.array(z.string()), position: z.number().int() })
  .meta({ id: 'MetadataField' }) satisfies z.ZodType<MetadataField>

/** The fields with the list's revision (0 before its first save; expectedRevision). */
export const MetadataFieldListSchema = listOf(MetadataFieldSchema).extend({ revision: recordRevision }).meta({ id: 'MetadataFieldList' })

// ---- Drawings (docs/drawings.md) ----

export const PinColoursSchema = z.object({ open: hex, close_requested: hex, closed: hex }).meta({ id: 'PinColours' }) satisfies z.ZodType<PinColours>

const rotation = z.union([z.literal(0), z.literal(90), z.literal(180), z.literal(270)])

export const DrawingSheetSchema = z
  .object({ documentId: z.uuid(), number: z.string(), title: z.string(), currentRevision: revisionRef.nullable(), pinning: z.boolean(), scale: z.string().nullable(), rotation })
  .meta({ id: 'DrawingSheet' }) satisfies z.ZodType<DrawingSheet>

export const DrawingOverlaySchema = z
  .object({ projectId: z.uuid().nullable(), colours: PinColoursSchema, inherited: z.boolean(), sheets: z.array(DrawingSheetSchema), revision: recordRevision })
  .meta({ id: 'DrawingOverlay' }) satisfies z.ZodType<DrawingOverlay>

export const SheetImageSchema = z
  .object({ revisionId: z.uuid(), revisionCode: z.string(), width: count, height: count, rotation, url: z.string() })
  .meta({ id: 'SheetImage' }) satisfies z.ZodType<SheetImage>

const pinFields = {
  itemId: z.uuid(),
  itemNumber: z.number().int().min(1),
  itemTitle: z.string(),
  itemStatus: z.enum(['open', 'close_requested', 'closed']),
  documentId: z.uuid(),
  revisionId: z.uuid(),
  revisionCode: z.string(),
  x: z.number(),
  y: z.number(),
  needsReview: z.boolean(),
  colour: z.string(),
}

export const PinSchema = z.object(pinFields).meta({ id: 'Pin' }) satisfies z.ZodType<Pin>
export const PinListSchema = listOf(PinSchema)

export const ItemPinSchema = z
  .object({ ...pinFields, projectId: z.uuid(), documentNumber: z.string(), documentTitle: z.string(), sheet: SheetImageSchema.nullable(), colours: PinColoursSchema, revision: recordRevision })
  .meta({ id: 'ItemPin' }) satisfies z.ZodType<ItemPin>

export const ProjectDrawingsSchema = z.object({
  projectId: z.uuid(),
  colours: PinColoursSchema,
  items: z.array(DrawingSheetSchema.extend({ sheet: SheetImageSchema })),
}) satisfies z.ZodType<ProjectDrawings>

export const DrawingViewSchema = z
  .object({
    document: z.object({ id: z.uuid(), projectId: z.uuid(), number: z.string(), title: z.string(), state: z.enum(CDE_STATES) }),
    revision: z.object({ id: z.uuid(), code: z.string(), superseded: z.boolean(), supersededBy: revisionRef.nullable() }),
    currentRevision: revisionRef.nullable(),
    sheet: SheetImageSchema,
    scale: z.string().nullable(),
    pinning: z.boolean(),
    colours: PinColoursSchema,
    pins: z.array(PinSchema),
  })
  .meta({ id: 'DrawingView' }) satisfies z.ZodType<DrawingView>
