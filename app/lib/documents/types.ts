import type { UserRef } from '../reporting/types'

/**
 * The JSON shapes of the document calls (docs/documents.md), shared by the backend and the
 * screens. Times are UTC ISO strings named …AtUtc.
 */

/** ISO 19650 common data environment states. */
export const CDE_STATES = ['WIP', 'Shared', 'Published', 'Archived'] as const
export type CdeState = (typeof CDE_STATES)[number]

/** Permission levels, weakest first: each includes the ones before it. */
export const PERMISSION_LEVELS = ['none', 'view', 'upload', 'edit', 'manage'] as const
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number]

export const PERMISSION_TARGETS = ['project', 'folder', 'document'] as const
export type PermissionTarget = (typeof PERMISSION_TARGETS)[number]

/** One field of the container name, in order; `codes` null means any value of the right shape. */
export type NamingField = {
  key: string
  label: string
  minLength: number
  maxLength: number
  /** letters and digits, or digits only */
  charset: 'alphanumeric' | 'digits'
  codes: Array<{ code: string; description: string }> | null
}

/** `revision`: 0 while the project keeps the default standard, bumped by every save (expectedRevision). */
export type NamingStandard = { projectId: string; fields: NamingField[]; example: string; updatedAtUtc: string | null; revision: number }

export type MetadataFieldKind = 'text' | 'choice' | 'date' | 'number'

export type MetadataField = {
  key: string
  label: string
  kind: MetadataFieldKind
  required: boolean
  options: string[]
  position: number
}

/** Values by metadata field key: text, a choice's option, an ISO date (YYYY-MM-DD) or a number. */
export type MetadataValues = Record<string, string | number>

export type Breadcrumb = { id: string; name: string }

export type Folder = {
  id: string
  projectId: string
  parentId: string | null
  name: string
  /** The caller may not view this folder, only what lies below it: its name leads there, nothing else of it is shown. */
  restricted?: true
  /** From the top folder down to the parent. */
  breadcrumbs: Breadcrumb[]
  /** Sub-folders and documents directly inside that the caller may see. */
  folderCount: number
  documentCount: number
  /** Bumped by every rename or move: send it back as expectedRevision. */
  revision: number
  createdAtUtc: string
  updatedAtUtc: string
}

/** A folder in a tree answer; `children` is absent below the depth asked for. */
export type FolderNode = Folder & { children?: FolderNode[] }

export type DocumentTree = {
  projectId: string
  /** The folder the tree starts at (null: the project's top). */
  folder: Folder | null
  folders: FolderNode[]
  /** The caller's level where the tree starts (the folder, or the project's top): which forms to offer there. */
  access: PermissionLevel
}

export type Revision = {
  id: string
  documentId: string
  version: number
  code: string
  status: string
  comment: string | null
  issuedBy: UserRef | null
  issuedAtUtc: string
  fileName: string
  contentType: string
  sizeBytes: number
  sha256: string
  /** A sheet (PDF or image) can carry pins; width and height of its raster. */
  sheet: { width: number; height: number } | null
  superseded: boolean
  supersededAtUtc: string | null
  supersededBy: { id: string; code: string } | null
  downloadUrl: string
}

export type DocumentSummary = {
  id: string
  projectId: string
  folderId: string | null
  number: string
  title: string
  discipline: string
  docType: string
  status: string
  state: CdeState
  currentRevision: { id: string; code: string; status: string; issuedAtUtc: string } | null
  updatedAtUtc: string
}

export type DocumentDetail = DocumentSummary & {
  metadata: MetadataValues
  breadcrumbs: Breadcrumb[]
  revisions: Revision[]
  createdBy: UserRef | null
  createdAtUtc: string
  /** What the caller may do here. */
  access: PermissionLevel
  revision: number
  /** Published or sent: its number, discipline and type change only by Renumber (the rule book). */
  numberLocked: boolean
  /** Its explicit renumbers, oldest first (who, when, from, to, why, how many recipients were told). */
  renumbers: Array<{ atUtc: string; by: UserRef | null; from: string; to: string; reason: string; told: number }>
}

export type SearchPage = { items: DocumentSummary[]; total: number; page: number; pageSize: number }

export type PermissionEntry = {
  subjectKind: 'user' | 'role'
  /** A user's id or a role key (admin, read-write, read-only). */
  subject: string
  /** The person's name or the role's label. */
  subjectName: string
  level: PermissionLevel
}

export type Permissions = {
  target: PermissionTarget
  targetId: string
  /** Entries set here. */
  entries: PermissionEntry[]
  /** What applies here when nothing is set, per role, from above. */
  inherited: PermissionEntry[]
  /** The revision of the entries set here (0 before their first save; expectedRevision). */
  revision: number
}

export type ValidationResult = { valid: boolean; errors: Record<string, string[]>; parsed: Record<string, string> | null }

/** Pin colours by item status (hex #RRGGBB). */
export type PinColours = { open: string; close_requested: string; closed: string }

export type DrawingSheet = {
  documentId: string
  number: string
  title: string
  currentRevision: { id: string; code: string } | null
  pinning: boolean
  scale: string | null
  rotation: 0 | 90 | 180 | 270
}

/** `revision`: bumped by every save of the overlay (expectedRevision). */
export type DrawingOverlay = { projectId: string | null; colours: PinColours; inherited: boolean; sheets: DrawingSheet[]; revision: number }

export type Pin = {
  itemId: string
  itemNumber: number
  itemTitle: string
  itemStatus: 'open' | 'close_requested' | 'closed'
  documentId: string
  revisionId: string
  revisionCode: string
  x: number
  y: number
  needsReview: boolean
  colour: string
}

/** A sheet's clockwise rotation in degrees, as the drawings overlay sets it. */
export type SheetRotation = DrawingSheet['rotation']

/** A revision's sheet raster as a drawing view draws it: `url` is GET /api/revisions/{revisionId}/sheet. */
export type SheetImage = { revisionId: string; revisionCode: string; width: number; height: number; rotation: SheetRotation; url: string }

/** GET, PUT /api/items/{itemId}/pin: the Pin, with the drawing it sits on and the colours of its project. */
export type ItemPin = Pin & {
  projectId: string
  documentNumber: string
  documentTitle: string
  /** null when the pin's revision has no sheet (a later revision was not a drawing). */
  sheet: SheetImage | null
  colours: PinColours
  /** Bumped by every placing, move, confirmation or removal of the item's pin (expectedRevision). */
  revision: number
}

/** A drawing of a project (its current revision has a sheet): what the pin picker offers. */
export type ProjectDrawing = DrawingSheet & { sheet: SheetImage }

/** GET /api/projects/{projectId}/drawings: the project's drawings the caller may see. */
export type ProjectDrawings = { projectId: string; colours: PinColours; items: ProjectDrawing[] }

/** GET /api/documents/{id}/drawing?revisionId=: one revision's sheet; its pins when it is the current one. */
export type DrawingView = {
  document: { id: string; projectId: string; number: string; title: string; state: CdeState }
  revision: { id: string; code: string; superseded: boolean; supersededBy: { id: string; code: string } | null }
  currentRevision: { id: string; code: string } | null
  sheet: SheetImage
  scale: string | null
  pinning: boolean
  colours: PinColours
  /** Empty for a superseded revision: pins move to the current one. */
  pins: Pin[]
}
