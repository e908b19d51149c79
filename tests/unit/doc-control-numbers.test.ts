import { describe, expect, test } from 'vitest'
import { numberFromParts, sentParts } from '~/components/documents/number-builder'
import { DEFAULT_TRANSMITTAL_FORMAT, parseTransmittalFormat, renderTransmittalNumber } from '~/lib/doc-control/transmittal-numbering'

/** docs/doc-control.md "Transmittal numbers", and the upload form's number builder (docs/documents.md "Naming"). */

describe('transmittal number formats', () => {
  const values = { project: 'RSAA', seq: 7, year: 2026 }

  test('the default is the naming code, TRN and four digits', () => {
    expect(DEFAULT_TRANSMITTAL_FORMAT).toBe('{project}-TRN-{seq:4}')
    expect(renderTransmittalNumber(DEFAULT_TRANSMITTAL_FORMAT, values)).toBe('RSAA-TRN-0007')
    expect(renderTransmittalNumber('{project}/{year}/{seq}', values)).toBe('RSAA/2026/7')
    expect(renderTransmittalNumber('T{seq:6}', { ...values, seq: 1234567 })).toBe('T1234567')
  })

  test('a project without a code leaves the code and the separator beside it out', () => {
    const none = { ...values, project: '' }
    expect(renderTransmittalNumber('{project}-TRN-{seq:4}', none)).toBe('TRN-0007')
    expect(renderTransmittalNumber('TRN-{project}-{seq:4}', none)).toBe('TRN-0007')
    expect(renderTransmittalNumber('TRN-{seq:4}-{project}', none)).toBe('TRN-0007')
  })

  test('a format needs the sequence once, known placeholders and number characters; every problem is named', () => {
    expect(parseTransmittalFormat('{project}-TRN-{seq:4}').problems).toEqual([])
    expect(parseTransmittalFormat('TRN').problems).toEqual(['The format needs the sequence, {seq} or {seq:4}, so that each transmittal has its own number.'])
    expect(parseTransmittalFormat('{seq}{seq}').problems).toEqual(['The format takes the sequence once.'])
    expect(parseTransmittalFormat('{proj} x {seq:12}').problems).toHaveLength(3)
    expect(parseTransmittalFormat('{seq}}').problems).toHaveLength(1)
  })
})

describe('the number builder', () => {
  test('the posted parts, in their order, make the number; none chosen makes none', () => {
    const form = new FormData()
    form.append('numberPart.project', 'sym01')
    form.append('numberPart.originator', 'ARC')
    form.append('numberPart.number', ' 0001 ')
    expect(numberFromParts(form)).toBe('SYM01-ARC-0001')
    const blank = new FormData()
    blank.append('numberPart.project', '')
    blank.append('number', 'X')
    expect(numberFromParts(blank)).toBeNull()
  })

  test('a part left out stays in its place, so the naming check names it', () => {
    const form = new FormData()
    form.append('numberPart.project', 'SYM01')
    form.append('numberPart.originator', '')
    form.append('numberPart.number', '0001')
    expect(numberFromParts(form)).toBe('SYM01--0001')
  })

  test('a form that comes back keeps the choices', () => {
    expect(sentParts({ numberPart: { project: 'SYM01', level: '00' } })).toEqual({ project: 'SYM01', level: '00' })
    expect(sentParts({ numberPart: 'x' })).toEqual({})
    expect(sentParts(undefined)).toEqual({})
  })
})
