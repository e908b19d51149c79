import type { CdeState, NamingField, PermissionLevel } from './types'
import { PERMISSION_LEVELS } from './types'

/**
 * The rules of controlled documents that both sides need (docs/documents.md, ../shared/notes/
 * doc-control.md): suitability codes and the state each belongs to, revision codes and their
 * order, permission levels, and the project naming standard the seed and new projects start from.
 */

/** Suitability (status) codes of ISO 19650-2 UK NA with the CDE state each belongs to. */
export const SUITABILITY: ReadonlyArray<{ code: string; state: Exclude<CdeState, 'Archived'>; label: string }> = [
  { code: 'S0', state: 'WIP', label: 'Initial status' },
  { code: 'S1', state: 'Shared', label: 'Suitable for coordination' },
  { code: 'S2', state: 'Shared', label: 'Suitable for information' },
  { code: 'S3', state: 'Shared', label: 'Suitable for review and comment' },
  { code: 'S4', state: 'Shared', label: 'Suitable for stage approval' },
  { code: 'S6', state: 'Shared', label: 'Suitable for PIM authorisation' },
  { code: 'S7', state: 'Shared', label: 'Suitable for AIM authorisation' },
  { code: 'A1', state: 'Published', label: 'Authorised and accepted (stage 1)' },
  { code: 'A2', state: 'Published', label: 'Authorised and accepted (stage 2)' },
  { code: 'A3', state: 'Published', label: 'Authorised and accepted (stage 3)' },
  { code: 'A4', state: 'Published', label: 'Authorised and accepted (stage 4)' },
  { code: 'A5', state: 'Published', label: 'Authorised and accepted (stage 5)' },
  { code: 'B1', state: 'Published', label: 'Partial sign-off with comments (stage 1)' },
  { code: 'B2', state: 'Published', label: 'Partial sign-off with comments (stage 2)' },
  { code: 'B3', state: 'Published', label: 'Partial sign-off with comments (stage 3)' },
  { code: 'B4', state: 'Published', label: 'Partial sign-off with comments (stage 4)' },
  { code: 'B5', state: 'Published', label: 'Partial sign-off with comments (stage 5)' },
  { code: 'CR', state: 'Published', label: 'As constructed record' },
]

export const SUITABILITY_CODES = SUITABILITY.map((s) => s.code)

export function stateOfStatus(code: string): Exclude<CdeState, 'Archived'> | undefined {
  return SUITABILITY.find((s) => s.code === code)?.state
}

export function statusLabel(code: string): string {
  return SUITABILITY.find((s) => s.code === code)?.label ?? code
}

/**
 * Revision codes: P01, P02… while preliminary (WIP sub-revisions P01.1, P01.2 before the share),
 * C01, C02… once contractual (published). Two digits, 01–99.
 */
const REVISION_CODE = /^(P|C)(\d{2})(?:\.(\d{1,2}))?$/

export type RevisionCode = { series: 'P' | 'C'; number: number; sub: number }

export function parseRevisionCode(code: string): RevisionCode | undefined {
  const match = REVISION_CODE.exec(code)
  if (!match) return undefined
  const series = match[1] as 'P' | 'C'
  const number = Number(match[2])
  const sub = match[3] === undefined ? 0 : Number(match[3])
  if (number < 1 || (series === 'C' && match[3] !== undefined) || (match[3] !== undefined && sub < 1)) return undefined
  return { series, number, sub }
}

/** Negative when a comes before b: every P before every C, then by number, then sub-revision. */
export function compareRevisionCodes(a: RevisionCode, b: RevisionCode): number {
  if (a.series !== b.series) return a.series === 'P' ? -1 : 1
  return a.number - b.number || a.sub - b.sub
}

function format(code: RevisionCode): string {
  const base = `${code.series}${String(code.number).padStart(2, '0')}`
  return code.sub > 0 ? `${base}.${code.sub}` : base
}

/** The highest whole number a series has reached among a document's codes (0 when none). */
function highestOf(series: 'P' | 'C', codes: readonly string[]): number {
  let highest = 0
  for (const code of codes) {
    const parsed = parseRevisionCode(code)
    if (parsed?.series === series) highest = Math.max(highest, parsed.number)
  }
  return highest
}

/**
 * The code a new revision would take: P01 for the first; the next whole P after a P; the next C
 * (C01 the first time) when it is issued for a published suitability; after a C, the next C when
 * published again, or the next P for further work (P02 after P01 → C01: ISO 19650's preliminary
 * and contractual codes count on side by side). `codes` are every code the document has had
 * (its current one when not given).
 */
export function nextRevisionCode(current: string | null, status: string, codes: readonly string[] = current === null ? [] : [current]): string {
  const published = stateOfStatus(status) === 'Published'
  const parsed = current === null ? undefined : parseRevisionCode(current)
  const all = current === null ? codes : [...codes, current]
  const next = (series: 'P' | 'C') => format({ series, number: Math.min(highestOf(series, all) + 1, 99), sub: 0 })
  if (!parsed) return published ? next('C') : next('P')
  if (parsed.series === 'P') return published ? next('C') : format({ series: 'P', number: Math.min(Math.max(parsed.number, highestOf('P', all)) + 1, 99), sub: 0 })
  return published ? next('C') : next('P')
}

/**
 * Whether a new code comes after the current one: in its own series after the current code (P02
 * after P01, P01.2 after P01.1, C02 after C01); a C after a P is the next contractual number; a P
 * after a C starts further work past every P the document has had (P02 after P01 → C01).
 */
export function comesAfter(code: RevisionCode, current: RevisionCode, codes: readonly string[]): boolean {
  if (code.series === current.series) return compareRevisionCodes(code, current) > 0
  return code.number > highestOf(code.series, codes)
}

/**
 * Problems of a new revision's code against the status it is issued for and the current code, as
 * messages. `codes`: every code the document has had (its current one when not given).
 */
export function revisionCodeProblems(code: string, status: string, current: string | null, codes: readonly string[] = current === null ? [] : [current]): string[] {
  const parsed = parseRevisionCode(code)
  if (!parsed) return ['Use a revision code like P01 (preliminary), P01.1 (work in progress) or C01 (contractual).']
  const problems: string[] = []
  const state = stateOfStatus(status)
  if (parsed.series === 'C' && state !== 'Published') problems.push(`A contractual revision (${code}) is issued for a published suitability (A1…, B1… or CR), not ${status}.`)
  if (parsed.series === 'P' && state === 'Published') problems.push(`A published suitability (${status}) takes a contractual revision code (C01, C02…), not ${code}.`)
  if (parsed.sub > 0 && state !== 'WIP') problems.push(`Sub-revisions like ${code} are for work in progress (S0) only.`)
  const before = current === null ? undefined : parseRevisionCode(current)
  const all = current === null ? codes : [...codes, current]
  if (before && !comesAfter(parsed, before, all)) problems.push(`The revision must come after the current one, ${current}: ${nextRevisionCode(current, status, all)} is next.`)
  return problems
}

export function levelRank(level: PermissionLevel): number {
  return PERMISSION_LEVELS.indexOf(level)
}

export function atLeast(level: PermissionLevel, wanted: PermissionLevel): boolean {
  return levelRank(level) >= levelRank(wanted)
}

export const PERMISSION_LABELS: Record<PermissionLevel, string> = {
  none: 'No access',
  view: 'View',
  upload: 'Upload',
  edit: 'Edit',
  manage: 'Manage',
}

/** What an organisation role may do in a project's documents when nothing more specific is set. */
export const ROLE_DEFAULT_LEVEL = { admin: 'manage', 'read-write': 'edit', 'read-only': 'view' } as const satisfies Record<string, PermissionLevel>

/** The Type code of drawings (ISO 19650-2 UK NA): their PDF or image revisions get a sheet for pins. */
export const DRAWING_TYPE = 'DR'

/** The container name's fields are joined by this. */
export const NUMBER_SEPARATOR = '-'

/**
 * The UK National Annex's fields with a realistic starter code list. A project's own list is
 * edited by its document controller; `project` starts as the project's code.
 */
export function defaultNamingFields(projectCode: string): NamingField[] {
  return [
    { key: 'project', label: 'Project', minLength: 2, maxLength: 6, charset: 'alphanumeric', codes: [{ code: projectCode, description: 'This project' }] },
    {
      key: 'originator',
      label: 'Originator',
      minLength: 3,
      maxLength: 6,
      charset: 'alphanumeric',
      codes: [
        { code: 'ARC', description: 'Architect' },
        { code: 'STR', description: 'Structural engineer' },
        { code: 'MEP', description: 'Building services engineer' },
        { code: 'CIV', description: 'Civil engineer' },
        { code: 'GCO', description: 'Main contractor' },
      ],
    },
    {
      key: 'volume',
      label: 'Volume/System',
      minLength: 1,
      maxLength: 2,
      charset: 'alphanumeric',
      codes: [
        { code: 'ZZ', description: 'All zones' },
        { code: 'XX', description: 'No zone' },
        { code: 'Z1', description: 'Zone 1' },
        { code: 'Z2', description: 'Zone 2' },
        { code: 'Z3', description: 'Zone 3' },
      ],
    },
    {
      key: 'level',
      label: 'Level/Location',
      minLength: 2,
      maxLength: 2,
      charset: 'alphanumeric',
      codes: [
        { code: 'B1', description: 'Basement 1' },
        { code: '00', description: 'Ground floor' },
        { code: '01', description: 'Level 1' },
        { code: '02', description: 'Level 2' },
        { code: '03', description: 'Level 3' },
        { code: 'M1', description: 'Mezzanine' },
        { code: 'RF', description: 'Roof' },
        { code: 'ZZ', description: 'Multiple levels' },
        { code: 'XX', description: 'No level' },
      ],
    },
    {
      key: 'type',
      label: 'Type',
      minLength: 2,
      maxLength: 2,
      charset: 'alphanumeric',
      codes: [
        { code: 'DR', description: 'Drawing' },
        { code: 'M3', description: '3D model' },
        { code: 'SP', description: 'Specification' },
        { code: 'SH', description: 'Schedule' },
        { code: 'RP', description: 'Report' },
        { code: 'CA', description: 'Calculation' },
        { code: 'CO', description: 'Correspondence' },
        { code: 'MI', description: 'Minutes' },
        { code: 'SU', description: 'Survey' },
      ],
    },
    {
      key: 'role',
      label: 'Role',
      minLength: 1,
      maxLength: 2,
      charset: 'alphanumeric',
      codes: [
        { code: 'A', description: 'Architect' },
        { code: 'S', description: 'Structural engineer' },
        { code: 'M', description: 'Mechanical engineer' },
        { code: 'E', description: 'Electrical engineer' },
        { code: 'C', description: 'Civil engineer' },
        { code: 'W', description: 'Contractor' },
        { code: 'Z', description: 'General' },
      ],
    },
    { key: 'number', label: 'Number', minLength: 4, maxLength: 6, charset: 'digits', codes: null },
  ]
}

/** A project code made fit for the naming standard's Project field (letters and digits, 2–6). */
export function projectCodeForNaming(code: string | null, fallback: string): string {
  const cleaned = (code ?? '')
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, 6)
  return cleaned.length >= 2 ? cleaned : fallback
}

/** Field-by-field problems of a proposed container name, each naming the field; empty when it is valid. */
export function namingProblems(number: string, fields: NamingField[]): { problems: string[]; parts: Record<string, string> | null } {
  const trimmed = number.trim()
  if (trimmed === '') return { problems: ['Give the document number.'], parts: null }
  const values = trimmed.split(NUMBER_SEPARATOR)
  if (values.length !== fields.length) {
    const shape = fields.map((f) => f.label).join(NUMBER_SEPARATOR)
    return { problems: [`The number has ${values.length} part${values.length === 1 ? '' : 's'}; it needs ${fields.length}: ${shape}.`], parts: null }
  }
  const problems: string[] = []
  const parts: Record<string, string> = {}
  fields.forEach((field, index) => {
    const value = values[index] ?? ''
    parts[field.key] = value
    const shape = field.charset === 'digits' ? /^[0-9]*$/ : /^[A-Za-z0-9]*$/
    const length = field.minLength === field.maxLength ? `${field.minLength}` : `${field.minLength}–${field.maxLength}`
    const kind = field.charset === 'digits' ? 'digits' : 'letters or digits'
    if (value === '') {
      problems.push(`${field.label} is missing.`)
    } else if (!shape.test(value) || value.length < field.minLength || value.length > field.maxLength) {
      problems.push(`${field.label} “${value}” must be ${length} ${kind}${field.codes ? " from the project's list" : ''}.`)
    } else if (field.codes && !field.codes.some((c) => c.code === value.toUpperCase())) {
      const list = field.codes.map((c) => c.code).join(', ')
      problems.push(`${field.label} “${value}” is not in the project's list (${list}).`)
    }
  })
  return { problems, parts: problems.length === 0 ? parts : null }
}

/** A container name as stored: upper case, fields joined by the separator. */
export function normaliseNumber(number: string): string {
  return number.trim().toUpperCase()
}

export function exampleNumber(fields: NamingField[]): string {
  return fields.map((f) => f.codes?.[0]?.code ?? (f.charset === 'digits' ? '1'.padStart(f.minLength, '0') : 'X'.repeat(f.minLength))).join(NUMBER_SEPARATOR)
}
