import { expect, test } from 'vitest'
import {
  DEFAULT_COLUMNS,
  DEFAULT_ITEMS_QUERY,
  groupItems,
  hasFilters,
  itemsHref,
  type ItemsQuery,
  outstandingSearch,
  parseItemsQuery,
  serializeItemsQuery,
  viewQueryOf,
  waitsForConfirmationBy,
} from '~/lib/reporting/items-query'
import type { Item } from '~/lib/reporting/types'

const PROJECT = '3f2504e0-4f89-41d3-9a0c-0305e82c3301'
const REPORT = '6ba7b810-9dad-41d1-80b4-00c04fd430c8'
const USER = '7c9e6679-7425-40de-944b-e07fc1f90ae7'
const A = '11111111-1111-4111-8111-111111111111'
const B = '22222222-2222-4222-8222-222222222222'
const C = '33333333-3333-4333-8333-333333333333'

test('an empty URL is the default state, and the default state serialises to nothing', () => {
  expect(parseItemsQuery('')).toEqual(DEFAULT_ITEMS_QUERY)
  expect(serializeItemsQuery(DEFAULT_ITEMS_QUERY)).toBe('')
  expect(itemsHref(DEFAULT_ITEMS_QUERY)).toBe('/items')
  expect(hasFilters(DEFAULT_ITEMS_QUERY)).toBe(false)
})

test('every part of the state survives a round trip through the URL', () => {
  const state: ItemsQuery = {
    projectId: PROJECT,
    reportId: REPORT,
    packageKey: 'electrical',
    status: 'close_requested',
    assignee: 'me',
    overdue: true,
    verifier: 'me',
    columns: ['number', 'status', 'project', 'nextAction'],
    groupBy: 'assignee',
    layout: 'cards',
    before: 'eyJ0IjoiMjAyNi0wMS0wMVQwMDowMDowMFoifQ',
    compare: [A, B, C],
  }
  const search = serializeItemsQuery(state)
  expect(parseItemsQuery(search)).toEqual(state)
  expect(parseItemsQuery(`?${search}`)).toEqual(state)
  expect(serializeItemsQuery(parseItemsQuery(search))).toBe(search)
  expect(hasFilters(state)).toBe(true)
})

test('a member id as assignee round-trips, lower-cased', () => {
  const state = parseItemsQuery(`assignee=${USER.toUpperCase()}`)
  expect(state.assignee).toBe(USER)
  expect(parseItemsQuery(serializeItemsQuery(state)).assignee).toBe(USER)
})

test('what a plain GET form submits (every field, empty ones too) reads like the canonical URL', () => {
  const submitted = new URLSearchParams([
    ['project', ''],
    ['package', ''],
    ['status', 'open'],
    ['assignee', ''],
    ['overdue', '1'],
    ...DEFAULT_COLUMNS.map((column) => ['col', column]),
    ['group', 'none'],
    ['layout', 'auto'],
  ])
  const state = parseItemsQuery(submitted)
  expect(state).toEqual({ ...DEFAULT_ITEMS_QUERY, status: 'open', overdue: true })
  expect(serializeItemsQuery(state)).toBe('status=open&overdue=1')
})

test('bad values are ignored, never fatal', () => {
  const state = parseItemsQuery(
    'project=not-a-uuid&report=42&package=%3Cscript%3E&status=closed&assignee=someone&overdue=maybe&verifier=you' +
      '&col=secret&col=title&group=colour&layout=grid&before=%27%3B--&compare=' +
      A,
  )
  expect(state).toEqual({ ...DEFAULT_ITEMS_QUERY, columns: ['title'] })
})

test('only outstanding statuses filter the list: closed items are never in it', () => {
  expect(parseItemsQuery('status=closed').status).toBeNull()
  expect(parseItemsQuery('status=open').status).toBe('open')
})

test('columns keep their fixed order, drop unknown names, and fall back to the defaults when none is left', () => {
  expect(parseItemsQuery('col=dueDate&col=number&col=dueDate').columns).toEqual(['number', 'dueDate'])
  expect(parseItemsQuery('columns=title,priority').columns).toEqual(['title', 'priority'])
  expect(parseItemsQuery('col=nonsense').columns).toEqual([...DEFAULT_COLUMNS])
  expect(serializeItemsQuery({ columns: [...DEFAULT_COLUMNS] })).toBe('')
})

test('an item stays reachable: columns without number or title get the title', () => {
  expect(parseItemsQuery('col=status&col=assignee').columns).toEqual(['title', 'status', 'assignee'])
})

test('a comparison needs two items, keeps at most five, and drops duplicates and bad ids', () => {
  expect(parseItemsQuery(`compare=${A}`).compare).toEqual([])
  expect(parseItemsQuery(`compare=${A},${A}`).compare).toEqual([])
  expect(parseItemsQuery(`compare=${A},nope,${B}`).compare).toEqual([A, B])
  const many = Array.from({ length: 7 }, (_, i) => `${i}${A.slice(1)}`)
  expect(parseItemsQuery(`compare=${many.join(',')}`).compare).toHaveLength(5)
})

test('the API names are accepted as aliases, so other screens may link with them', () => {
  const state = parseItemsQuery(`projectId=${PROJECT}&reportId=${REPORT}&packageKey=civil&assigneeUserId=${USER}&overdue=true`)
  expect(state).toMatchObject({ projectId: PROJECT, reportId: REPORT, packageKey: 'civil', assignee: USER, overdue: true })
})

test('a saved view keeps filters and display but not the page nor a comparison', () => {
  const state = parseItemsQuery(`status=open&group=project&before=abc&compare=${A},${B}`)
  expect(viewQueryOf(state)).toBe('status=open&group=project')
})

test('the outstanding call gets the API names, "me" as the user id, and the cursor', () => {
  const state = parseItemsQuery(`project=${PROJECT}&package=civil&assignee=me&overdue=1&before=abc`)
  expect(Object.fromEntries(outstandingSearch(state, { userId: USER, limit: 25 }))).toEqual({
    limit: '25',
    projectId: PROJECT,
    packageKey: 'civil',
    assigneeUserId: USER,
    overdue: 'true',
    before: 'abc',
  })
  // Waiting for my confirmation narrows to close requested; the scan sets its own cursor.
  const verifier = parseItemsQuery('verifier=me&status=open')
  expect(Object.fromEntries(outstandingSearch(verifier, { userId: USER, limit: 100, before: 'xyz' }))).toEqual({
    limit: '100',
    status: 'close_requested',
    before: 'xyz',
  })
})

function item(overrides: Partial<Item>): Item {
  return {
    id: A,
    number: 1,
    reportId: REPORT,
    reportTitle: 'Level 3 walk',
    projectId: PROJECT,
    projectTitle: 'Riverside',
    title: 'Fix the door',
    description: null,
    status: 'open',
    priority: 'medium',
    assignee: null,
    packageKey: null,
    location: null,
    dueDate: null,
    overdue: false,
    createdBy: { id: USER, displayName: 'Sam Site' },
    closedAtUtc: null,
    closedBy: null,
    createdAtUtc: '2026-01-01T00:00:00Z',
    updatedAtUtc: '2026-01-01T00:00:00Z',
    revision: 1,
    nextAction: { by: 'assignee', user: null, label: 'Needs an assignee' },
    ...overrides,
  }
}

test('grouping keeps list order inside a group, sorts groups by name and puts the empty group last', () => {
  const items = [
    item({ id: A, number: 1, assignee: { id: USER, displayName: 'Sam Site' } }),
    item({ id: B, number: 2 }),
    item({ id: C, number: 3, assignee: { id: PROJECT, displayName: 'Alex Admin' } }),
    item({ id: '44444444-4444-4444-8444-444444444444', number: 4, assignee: { id: USER, displayName: 'Sam Site' } }),
  ]
  const groups = groupItems(items, 'assignee', (key) => key)
  expect(groups.map((g) => [g.label, g.items.map((i) => i.number)])).toEqual([
    ['Alex Admin', [3]],
    ['Sam Site', [1, 4]],
    ['No assignee', [2]],
  ])
  expect(groupItems(items, 'none', (key) => key)).toHaveLength(1)
})

test('status groups follow the workflow, package groups show the package name', () => {
  const items = [item({ id: A, status: 'close_requested', packageKey: 'civil' }), item({ id: B, status: 'open' })]
  expect(groupItems(items, 'status', (key) => key).map((g) => g.label)).toEqual(['Open', 'Close requested'])
  expect(groupItems(items, 'package', (key) => (key === 'civil' ? 'Civil works' : key)).map((g) => g.label)).toEqual(['Civil works', 'No package'])
})

test('an item waits for my confirmation when its close is requested and I created it', () => {
  const me = { userId: USER, isAdmin: false }
  expect(waitsForConfirmationBy(item({ status: 'close_requested' }), me)).toBe(true)
  expect(waitsForConfirmationBy(item({ status: 'open' }), me)).toBe(false)
  expect(waitsForConfirmationBy(item({ status: 'close_requested', createdBy: { id: A, displayName: 'Alex Admin' } }), me)).toBe(false)
})

test('an administrator also confirms the close requests whose creator is gone', () => {
  const orphan = item({ status: 'close_requested', createdBy: null, nextAction: { by: 'verifier', user: null, label: 'Waiting on an administrator to confirm the close' } })
  expect(waitsForConfirmationBy(orphan, { userId: USER, isAdmin: false })).toBe(false)
  expect(waitsForConfirmationBy(orphan, { userId: A, isAdmin: true })).toBe(true)
})
