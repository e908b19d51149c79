import { z } from 'zod'
import { ITEM_PRIORITIES } from '~/lib/reporting/types'

/**
 * The forms of the projects, reports and report screens (docs/site-reporting.md "Validation").
 * The browser checks what it can; the backend checks the rest (an assignee who is a member, a
 * package usable on the project) and its answers come back as field errors.
 */

/** docs/site-reporting.md: project and report titles, item titles. */
export const TITLE_MAX = 200
/** The backend's limit for project codes (the contract is silent; server/domain/reporting/projects.ts). */
export const PROJECT_CODE_MAX = 40
/** docs/site-reporting.md: an item's description. */
export const DESCRIPTION_MAX = 5000
/** Ours: a location is a short place name ("Level 3, grid C4"), not a description. */
export const LOCATION_MAX = 200

const optionalTitle = z.string().trim().max(TITLE_MAX, `Use at most ${TITLE_MAX} characters.`).optional()
const id = (message: string) => z.string({ error: message }).trim().min(1, message)

export const ProjectCreateSchema = z.object({
  title: optionalTitle,
  code: z.string().trim().max(PROJECT_CODE_MAX, `Use at most ${PROJECT_CODE_MAX} characters.`).optional(),
})

export const ProjectRenameSchema = ProjectCreateSchema.extend({ projectId: id('The project is missing.') })

/** Archive and unarchive: nothing to type, only which project. */
export const ProjectStatusSchema = z.object({ projectId: id('The project is missing.') })

export const ReportCreateSchema = z.object({
  projectId: id('Choose a project.'),
  title: optionalTitle,
})

export const ReportRenameSchema = z.object({ title: optionalTitle })

/** A real calendar date, YYYY-MM-DD (the date input sends that shape). */
const isoDate = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Enter a date, for example 2026-03-31.')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`)
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value)
  }, 'Enter a date that exists, for example 2026-03-31.')

export const ItemCreateSchema = z.object({
  title: z.string({ error: 'Enter a title.' }).trim().min(1, 'Enter a title.').max(TITLE_MAX, `Use at most ${TITLE_MAX} characters.`),
  description: z.string().trim().max(DESCRIPTION_MAX, `Use at most ${DESCRIPTION_MAX} characters.`).optional(),
  priority: z.enum(ITEM_PRIORITIES, { error: 'Choose a priority.' }).optional(),
  assigneeUserId: z.uuid('Choose a member from the list.').optional(),
  packageKey: z.string().trim().max(64, 'Choose a package from the list.').optional(),
  location: z.string().trim().max(LOCATION_MAX, `Use at most ${LOCATION_MAX} characters.`).optional(),
  dueDate: isoDate.optional(),
})
