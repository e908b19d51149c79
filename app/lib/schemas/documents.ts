import { z } from 'zod'
import { SUITABILITY_CODES } from '~/lib/documents/rules'
import { PERMISSION_LEVELS } from '~/lib/documents/types'

/**
 * The document screens' forms (docs/documents.md "Screens"), one schema per form. Field names are
 * the API's, so the backend's field errors (`number`, `title`, `code`, `status`, `metadata.<key>`)
 * land next to the right field. The backend checks what needs the project (the naming standard,
 * the metadata fields, the revision order); these only catch what the browser can see.
 */

/** server/domain/documents/folders.ts FOLDER_NAME_MAX. */
export const FOLDER_NAME_MAX = 120
/** server/domain/documents/documents.ts DOCUMENT_TITLE_MAX. */
export const DOCUMENT_TITLE_MAX = 200
/** The API's limit on a document number (server/api/documents/documents.ts). */
export const DOCUMENT_NUMBER_MAX = 100
/** Ours: a revision comment is a note on what changed, not a report. */
export const REVISION_COMMENT_MAX = 2000

const optionalId = z.string().trim().max(64).optional()

const numberField = z
  .string({ error: 'Give the document number.' })
  .trim()
  .min(1, 'Give the document number.')
  .max(DOCUMENT_NUMBER_MAX, `A document number is at most ${DOCUMENT_NUMBER_MAX} characters.`)

const titleField = z
  .string({ error: 'Give the document a title.' })
  .trim()
  .min(1, 'Give the document a title.')
  .max(DOCUMENT_TITLE_MAX, `The title must be at most ${DOCUMENT_TITLE_MAX} characters.`)

const revisionFields = {
  code: z
    .string({ error: 'Give the revision code, for example P01.' })
    .trim()
    .toUpperCase()
    .min(1, 'Give the revision code, for example P01.')
    .max(8, 'Use a revision code like P01, P01.1 or C01.'),
  status: z.enum(SUITABILITY_CODES as [string, ...string[]], { error: 'Choose a suitability status from the list.' }),
  comment: z.string().trim().max(REVISION_COMMENT_MAX, `Use at most ${REVISION_COMMENT_MAX} characters.`).optional(),
}

export const FolderCreateSchema = z.object({
  name: z
    .string({ error: 'Give the folder a name.' })
    .trim()
    .min(1, 'Give the folder a name.')
    .max(FOLDER_NAME_MAX, `A folder name must be at most ${FOLDER_NAME_MAX} characters.`),
  parentId: optionalId,
})

/**
 * "Upload document": the document and its first revision. The file is not a schema field: without
 * JavaScript it comes as the form's `file` part, with it the upload island sends it afterwards.
 */
export const DocumentUploadSchema = z.object({
  number: numberField,
  title: titleField,
  folderId: optionalId,
  ...revisionFields,
})

/** "Check name": the number alone, against the project's naming standard and its other documents. */
export const DocumentNumberCheckSchema = z.object({ number: numberField })

export const RevisionSchema = z.object(revisionFields)

export const DocumentEditSchema = z.object({ number: numberField, title: titleField, folderId: optionalId })

/** The values are read per project field (their keys are the project's); this only bounds them. */
export const DocumentMetadataSchema = z.object({ metadata: z.record(z.string().max(64), z.string().max(2000).optional()).optional() })

export const PermissionLevelSchema = z.enum(PERMISSION_LEVELS, { error: 'Choose a level from the list.' })
