import { z } from 'zod'
import { PARTY_ROLES } from '~/lib/doc-control/types'

/**
 * The forms of the parties, matrix and deliverables screens (docs/doc-control.md "Screens"). Field
 * names are the API's, so its field errors land beside the right field. The backend checks what
 * needs the project (one appointing party, a task team's lead, a number already in the register).
 */

/** server/domain/doc-control/parties.ts PARTY_NAME_MAX. */
export const PARTY_NAME_MAX = 120
/** server/domain/doc-control/deliverables.ts. */
export const DELIVERABLE_NUMBER_MAX = 100
export const DELIVERABLE_TITLE_MAX = 200
export const MILESTONE_NAME_MAX = 60
/** Rows of milestones the add form offers (without JavaScript a form cannot grow): enough for a stage plan. */
export const NEW_MILESTONE_ROWS = 3
/** Empty rows the edit form offers below a deliverable's milestones. */
export const EXTRA_MILESTONE_ROWS = 2

const id = (message: string) => z.string({ error: message }).trim().min(1, message).max(64, message)

export const PARTY_ROLE_LABELS: Record<(typeof PARTY_ROLES)[number], string> = {
  appointing: 'Appointing party',
  'lead-appointed': 'Lead appointed party',
  'task-team': 'Task team',
}

export const PartySchema = z.object({
  name: z.string({ error: 'Give the party a name.' }).trim().min(1, 'Give the party a name.').max(PARTY_NAME_MAX, `Use at most ${PARTY_NAME_MAX} characters.`),
  code: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z0-9]{3,6}$/, 'An originator code is 3 to 6 letters or digits, e.g. ARC.')
    .optional(),
  role: z.enum(PARTY_ROLES, { error: 'Choose what the party is on this project.' }),
  parentId: z.string().trim().max(64).optional(),
})

export const PartyEditSchema = PartySchema.extend({ partyId: id('The party is missing.') })

export const PartyRefSchema = z.object({ partyId: id('The party is missing.') })

export const PartyPersonSchema = z.object({
  partyId: id('The party is missing.'),
  userId: id('Choose a person.'),
  lead: z.preprocess((v) => v === 'on' || v === 'true' || v === true, z.boolean()),
})

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
export const CONTACT_NAME_MAX = 120

/** An outside contact of a party (issue 32): the body of POST /api/parties/{partyId}/contacts. */
export const PartyContactSchema = z.object({
  name: z.string({ error: 'Give the contact’s name.' }).trim().min(1, 'Give the contact’s name.').max(CONTACT_NAME_MAX, `Use at most ${CONTACT_NAME_MAX} characters.`),
  company: z
    .string({ error: 'The company is text.' })
    .trim()
    .max(CONTACT_NAME_MAX, `Use at most ${CONTACT_NAME_MAX} characters.`)
    .optional()
    .transform((v) => v ?? ''),
  email: z
    .string({ error: 'Give the contact’s e-mail address.' })
    .trim()
    .min(1, 'Give the contact’s e-mail address.')
    .max(254, 'An e-mail address has at most 254 characters.')
    .regex(EMAIL_PATTERN, 'Enter an e-mail address like name@example.com.'),
})

/** The party screen's "Add an outside contact" form. */
export const PartyContactFormSchema = PartyContactSchema.extend({ partyId: id('The party is missing.') })

export const PartyContactRefSchema = z.object({ partyId: id('The party is missing.'), contactId: id('The contact is missing.') })

const milestoneRow = z.object({
  name: z.string().trim().max(MILESTONE_NAME_MAX, `Use at most ${MILESTONE_NAME_MAX} characters.`).optional(),
  plannedDate: z.string().trim().max(10).optional(),
})

const deliverableFields = z.object({
  number: z
    .string({ error: 'Give the planned document number.' })
    .trim()
    .min(1, 'Give the planned document number.')
    .max(DELIVERABLE_NUMBER_MAX, `Use at most ${DELIVERABLE_NUMBER_MAX} characters.`),
  title: z
    .string({ error: 'Give the deliverable a title.' })
    .trim()
    .min(1, 'Give the deliverable a title.')
    .max(DELIVERABLE_TITLE_MAX, `Use at most ${DELIVERABLE_TITLE_MAX} characters.`),
  partyId: z.string().trim().max(64).optional(),
  // conform leaves an all-empty row out as undefined.
  milestones: z.array(milestoneRow.optional()).max(40).optional(),
})

/** Rows left empty are not milestones; a row with only one half is a mistake to point at. */
function milestoneHalves(value: z.infer<typeof deliverableFields>, ctx: z.RefinementCtx) {
  ;(value.milestones ?? []).forEach((row, index) => {
    if (!row) return
    if (row.name && !row.plannedDate) ctx.addIssue({ code: 'custom', path: ['milestones', index, 'plannedDate'], message: 'Give the planned date.' })
    if (!row.name && row.plannedDate) ctx.addIssue({ code: 'custom', path: ['milestones', index, 'name'], message: 'Name the milestone.' })
  })
}

export const DeliverableSchema = deliverableFields.superRefine(milestoneHalves)

export const DeliverableEditSchema = deliverableFields.extend({ deliverableId: id('The deliverable is missing.') }).superRefine(milestoneHalves)

export const DeliverableRefSchema = z.object({ deliverableId: id('The deliverable is missing.') })

/** The filter of the register (a GET form). */
export const DeliverableFilterSchema = z.object({
  flag: z.enum(['issued', 'on-track', 'late', 'missing']).optional().catch(undefined),
  q: z.string().trim().max(100).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(10_000).optional().catch(undefined),
})
