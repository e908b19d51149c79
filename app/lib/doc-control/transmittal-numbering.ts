/**
 * How a project's transmittals are numbered (docs/doc-control.md "Transmittal numbers"): a format
 * of fixed characters and placeholders, kept per project. The server numbers with it; the settings
 * form checks and previews it with the same code.
 *
 * - `{project}`: the project's naming code (the Project field of its naming standard, else its code
 *   without separators, e.g. `RSAA` for `RSA-A`); when a project has none, the placeholder and the
 *   separator beside it are left out.
 * - `{seq}` or `{seq:N}`: the transmittal's sequence in the project, padded to N digits (1–9).
 * - `{year}`: the year the transmittal was started.
 */

export const DEFAULT_TRANSMITTAL_FORMAT = '{project}-TRN-{seq:4}'
export const TRANSMITTAL_FORMAT_MAX = 60

const PLACEHOLDER = /\{([^{}]*)\}/g
const LITERAL = /^[A-Za-z0-9._/-]*$/
const SEPARATOR = /[._/-]/

/** GET/PUT /api/projects/{projectId}/transmittal-numbering */
export type TransmittalNumbering = {
  projectId: string
  format: string
  defaultFormat: string
  /** What {project} stands for in this project; empty when it has no code. */
  namingCode: string
  /** The sequence and number the project's next transmittal will take. */
  nextSeq: number
  nextNumber: string
  /** The caller may change the format (manage on the project, not read-only). */
  canChange: boolean
  updatedAtUtc: string | null
  updatedByName: string | null
  /** 0 while the project keeps the default format, bumped by every save (expectedRevision). */
  revision: number
}

export type NumberingValues = { project: string; seq: number; year: number }

type Part = { literal: string } | { token: 'project' | 'year' } | { token: 'seq'; width: number }

/** The format's parts, or the problems that stop it being one; every problem at once, in plain words. */
export function parseTransmittalFormat(format: string): { parts: Part[] | null; problems: string[] } {
  const problems: string[] = []
  const parts: Part[] = []
  const text = format.trim()
  if (text === '') return { parts: null, problems: ['Give the format: for example {project}-TRN-{seq:4}.'] }
  if (text.length > TRANSMITTAL_FORMAT_MAX) problems.push(`The format is at most ${TRANSMITTAL_FORMAT_MAX} characters.`)
  let at = 0
  let seqs = 0
  const literal = (value: string) => {
    if (value === '') return
    if (!LITERAL.test(value) || value.includes('{') || value.includes('}'))
      problems.push(`“${value}” cannot be part of a number: use letters, digits, and - _ . / between the placeholders.`)
    parts.push({ literal: value })
  }
  for (const match of text.matchAll(PLACEHOLDER)) {
    literal(text.slice(at, match.index))
    at = match.index + match[0].length
    const [name, width, extra] = (match[1] ?? '').split(':')
    if (name === 'seq' && extra === undefined) {
      seqs += 1
      const digits = width === undefined ? 1 : Number(width)
      if (width !== undefined && !/^[1-9]$/.test(width)) problems.push('{seq:N} pads the sequence to N digits, N from 1 to 9.')
      parts.push({ token: 'seq', width: digits })
    } else if ((name === 'project' || name === 'year') && width === undefined) {
      parts.push({ token: name })
    } else {
      problems.push(`{${match[1] ?? ''}} is not a placeholder: use {project}, {seq:4} or {year}.`)
    }
  }
  literal(text.slice(at))
  if (seqs === 0) problems.push('The format needs the sequence, {seq} or {seq:4}, so that each transmittal has its own number.')
  if (seqs > 1) problems.push('The format takes the sequence once.')
  return problems.length > 0 ? { parts: null, problems } : { parts, problems }
}

/** The number a format gives; a format with problems gives the default's number. */
export function renderTransmittalNumber(format: string, values: NumberingValues): string {
  const parts = parseTransmittalFormat(format).parts ?? parseTransmittalFormat(DEFAULT_TRANSMITTAL_FORMAT).parts ?? []
  const out: string[] = []
  let dropSeparator = false
  for (const [index, part] of parts.entries()) {
    if ('literal' in part) {
      let text = part.literal
      if (dropSeparator && SEPARATOR.test(text.charAt(0))) text = text.slice(1)
      dropSeparator = false
      out.push(text)
      continue
    }
    const value =
      part.token === 'seq' ? String(values.seq).padStart(part.width, '0') : part.token === 'year' ? String(values.year) : values.project.trim().toUpperCase()
    if (value === '') {
      // An empty project code: leave out a separator beside it, the one after it when it opens the number.
      const last = out.length - 1
      if (index > 0 && last >= 0 && SEPARATOR.test((out[last] ?? '').slice(-1))) out[last] = (out[last] ?? '').slice(0, -1)
      else dropSeparator = true
      continue
    }
    dropSeparator = false
    out.push(value)
  }
  return out.join('')
}
