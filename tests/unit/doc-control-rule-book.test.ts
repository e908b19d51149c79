import { expect, test } from 'vitest'
import {
  documentProblems,
  issueProblems,
  mayRenumber,
  numberLocked,
  pairingProblems,
  purposeWarnings,
  reviewStartEffect,
  setPublishEffect,
  statusEffect,
  type DocumentFacts,
} from '#server/domain/documents/rule-book'
import { nextRevisionCode } from '~/lib/documents/rules'

/** server/domain/doc-control/rule-book.ts: the rules of controlled documents, each decision on its own. */

const doc = { number: 'RSA-ARC-Z1-01-DR-A-0001' }

test('S0–S7 go with P revisions, S0 alone with a WIP sub-revision, A/B/CR with C revisions', () => {
  for (const status of ['S0', 'S1', 'S2', 'S3', 'S4', 'S6', 'S7']) expect(pairingProblems('P02', status), status).toEqual([])
  expect(pairingProblems('P01.1', 'S0')).toEqual([])
  expect(pairingProblems('P01.1', 'S3')).toHaveLength(1)
  for (const status of ['A1', 'A3', 'B2', 'CR']) {
    expect(pairingProblems('C01', status), status).toEqual([])
    expect(pairingProblems('P02', status), status).toHaveLength(1)
  }
  expect(pairingProblems('C01', 'S3')).toHaveLength(1)
  expect(pairingProblems('P01', 'X9')).toEqual(['X9 is not a suitability code: use one of S0, S1, S2, S3, S4, S6, S7, A1, A2, A3, A4, A5, B1, B2, B3, B4, B5, CR.'])
})

test('a new revision: both fields, the order, and the next code named', () => {
  expect(issueProblems('P02', 'S3', 'P01')).toEqual({})
  expect(issueProblems('C01', 'A1', 'P02')).toEqual({})
  expect(issueProblems('P02', 'A1', 'P01').code).toEqual(['A published suitability (A1) takes a contractual revision code (C01, C02…), not P02.'])
  expect(issueProblems('P01', 'S3', 'P02').code).toEqual(['The revision must come after the current one, P02: P03 is next.'])
  expect(issueProblems('P03', 'Z1', 'P02').status).toHaveLength(1)
})

test('after a contractual revision: further work takes the next P, publishing again the next C (P01 → C01 → P02 → C02)', () => {
  const history = ['P01', 'C01']
  expect(issueProblems('P02', 'S3', 'C01', history)).toEqual({})
  expect(issueProblems('P02.1', 'S0', 'C01', history)).toEqual({})
  expect(issueProblems('P01', 'S3', 'C01', history).code).toEqual(['The revision must come after the current one, C01: P02 is next.'])
  expect(issueProblems('C02', 'A1', 'C01', history)).toEqual({})
  expect(issueProblems('C01', 'A2', 'P02', [...history, 'P02']).code).toEqual(['The revision must come after the current one, P02: C02 is next.'])
  expect(issueProblems('C02', 'A1', 'P02', [...history, 'P02'])).toEqual({})
  expect(nextRevisionCode('C01', 'S3', history)).toBe('P02')
  expect(nextRevisionCode('C01', 'A2', history)).toBe('C02')
  expect(nextRevisionCode('P02', 'A1', [...history, 'P02'])).toBe('C02')
  expect(nextRevisionCode('P02', 'S3', [...history, 'P02'])).toBe('P03')
  // An approval of P02 issues C02, the next contractual revision, not C01 again.
  expect(statusEffect({ ...doc, code: 'P02', codes: [...history, 'P02'] }, 'A1')).toEqual({ kind: 'issue', code: 'C02', status: 'A1' })
})

test('the P02/A1 regression: a published outcome on a preliminary revision issues the next C revision', () => {
  expect(statusEffect({ ...doc, code: 'P02' }, 'A1')).toEqual({ kind: 'issue', code: 'C01', status: 'A1' })
  expect(statusEffect({ ...doc, code: 'P01' }, 'B1')).toEqual({ kind: 'issue', code: 'C01', status: 'B1' })
  expect(statusEffect({ ...doc, code: 'C01' }, 'A2')).toEqual({ kind: 'set', status: 'A2' })
  expect(statusEffect({ ...doc, code: 'P02' }, 'S4')).toEqual({ kind: 'set', status: 'S4' })
  const back = statusEffect({ ...doc, code: 'C01' }, 'S3')
  expect(back.kind).toBe('refuse')
  expect(back.kind === 'refuse' && back.message).toContain('Upload a new revision')
})

test('a review starts on whole revisions: WIP is shared as S3, a sub-revision is refused with the code to upload', () => {
  expect(reviewStartEffect({ ...doc, code: 'P01', status: 'S0' })).toEqual({ kind: 'set', status: 'S3' })
  expect(reviewStartEffect({ ...doc, code: 'P02', status: 'S2' })).toBeNull()
  const sub = reviewStartEffect({ ...doc, code: 'P01.2', status: 'S0' })
  expect(sub).toEqual({ kind: 'refuse', message: `${doc.number} P01.2 is a work-in-progress sub-revision: upload it as P02 (a whole revision) before starting a review.` })
})

test('publishing a set: shared preliminary revisions are issued as C with A1; published ones stay', () => {
  expect(setPublishEffect({ ...doc, code: 'P03', status: 'S3' })).toEqual({ kind: 'issue', code: 'C01', status: 'A1' })
  expect(setPublishEffect({ ...doc, code: 'C02', status: 'B1' })).toBeNull()
})

test('purpose warnings: For construction needs A, For record a published suitability, nothing goes out as S0 unwarned', () => {
  const s3 = { ...doc, code: 'P02', status: 'S3' }
  expect(purposeWarnings('for-construction', [s3])).toEqual([`${doc.number} P02 is S3: “For construction” needs an authorised and accepted suitability (A1, A2…).`])
  expect(purposeWarnings('for-construction', [{ ...doc, code: 'C01', status: 'A1' }])).toEqual([])
  expect(purposeWarnings('for-construction', [{ ...doc, code: 'C01', status: 'B1' }])).toHaveLength(1)
  expect(purposeWarnings('for-review', [s3])).toEqual([])
  expect(purposeWarnings('for-information', [{ ...doc, code: 'P01', status: 'S0' }])).toHaveLength(1)
  expect(purposeWarnings('for-tender', [{ ...doc, code: 'P02', status: 'S4' }])).toEqual([])
  expect(purposeWarnings('for-record', [s3, { ...doc, code: 'C01', status: 'CR' }])).toHaveLength(1)
})

test('the number locks once published, ever published or sent; only a manager who is not read-only renumbers', () => {
  expect(numberLocked({ state: 'Shared', everPublished: false, everSent: false })).toBe(false)
  expect(numberLocked({ state: 'Published', everPublished: true, everSent: false })).toBe(true)
  expect(numberLocked({ state: 'Archived', everPublished: true, everSent: false })).toBe(true)
  expect(numberLocked({ state: 'Shared', everPublished: false, everSent: true })).toBe(true)
  expect(mayRenumber({ roleKey: 'admin' }, 'manage')).toBe(true)
  expect(mayRenumber({ roleKey: 'read-write' }, 'manage')).toBe(true)
  expect(mayRenumber({ roleKey: 'read-write' }, 'edit')).toBe(false)
  expect(mayRenumber({ roleKey: 'read-only' }, 'manage')).toBe(false)
})

test('documentProblems finds every broken invariant and none in a kept document', () => {
  const kept: DocumentFacts = {
    number: doc.number,
    status: 'A1',
    state: 'Published',
    currentRevisionId: 'c1',
    revisions: [
      { id: 'p1', version: 1, code: 'P01', status: 'S0', superseded: true },
      { id: 'p2', version: 2, code: 'P02', status: 'S3', superseded: true },
      { id: 'c1', version: 3, code: 'C01', status: 'A1', superseded: false },
    ],
  }
  expect(documentProblems(kept)).toEqual([])
  expect(documentProblems({ number: doc.number, status: 'S0', state: 'WIP', currentRevisionId: null, revisions: [] })).toEqual([])
  // Today's bug: P02 carrying A1.
  const bug: DocumentFacts = { ...kept, currentRevisionId: 'p2', revisions: [kept.revisions[0]!, { id: 'p2', version: 2, code: 'P02', status: 'A1', superseded: false }] }
  expect(documentProblems(bug).join(' ')).toContain('P02/A1')
  expect(documentProblems({ ...kept, status: 'S3' }).length).toBeGreaterThan(0)
  expect(documentProblems({ ...kept, state: 'Shared' }).length).toBeGreaterThan(0)
  expect(documentProblems({ ...kept, state: 'Archived' })).toEqual([])
  // After C01 further work is P02 (past every P the document had), never P01 again.
  const backwards = { ...kept, revisions: [kept.revisions[0]!, { id: 'p2', version: 2, code: 'C01', status: 'A1', superseded: true }, { id: 'c1', version: 3, code: 'P01', status: 'S3', superseded: false }] }
  expect(documentProblems({ ...backwards, status: 'S3', state: 'Shared' }).join(' ')).toContain('does not come after')
  const furtherWork = { ...kept, revisions: [kept.revisions[0]!, { id: 'p2', version: 2, code: 'C01', status: 'A1', superseded: true }, { id: 'c1', version: 3, code: 'P02', status: 'S3', superseded: false }] }
  expect(documentProblems({ ...furtherWork, status: 'S3', state: 'Shared' })).toEqual([])
})
