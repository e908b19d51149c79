import { expect, test } from 'vitest'
import type { OutboxEntry } from '~/islands/sync/outbox'
import type { Item, Report } from '~/lib/reporting/types'
import { assignedPage, escapeHtml, itemPage, missingPage, reportPage } from '~/sw/offline-pages'

/** Field mode's offline pages (app/sw/offline-pages.ts): what they say, and that nothing from the copy is markup. */

const frame = { css: 'body{color:red}</style><script>alert(1)</script>', locale: 'en-GB', lastSyncedAt: '2026-11-24T09:14:00.000Z' }

const item = {
  id: '3f0c1a52-9d7e-4c1b-8a55-1f2e3d4c5b6a',
  number: 7,
  reportId: 'a1a1a1a1-0000-4000-8000-000000000001',
  reportTitle: 'Level <B2> walk',
  projectId: 'p',
  projectTitle: null,
  title: 'Missing fire stop <img src=x onerror=alert(1)>',
  description: 'Riser "north"\nsecond line',
  status: 'open',
  priority: 'high',
  assignee: { id: 'u', displayName: 'Sam Site' },
  packageKey: null,
  location: 'B2 riser',
  dueDate: '2026-12-01',
  overdue: false,
  createdBy: null,
  closedAtUtc: null,
  closedBy: null,
  createdAtUtc: '2026-11-01T00:00:00.000Z',
  updatedAtUtc: '2026-11-20T00:00:00.000Z',
  revision: 3,
  nextAction: { by: 'assignee', user: null, label: '' },
} as Item

const waiting: OutboxEntry = {
  id: 'e1',
  itemId: item.id,
  body: 'Sealed </li> & done',
  requestClose: true,
  storedPhotoIds: [],
  photos: [{ name: 'a.jpg', type: 'image/jpeg', blob: new Blob(['x']), sessionId: null, photoId: null }],
  createdAtUtc: '2026-11-24T10:00:00.000Z',
  state: 'waiting',
  refusal: null,
}

test('escapeHtml leaves no markup', () => {
  expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;')
})

test('the item page: the banner with the last sync in the locale, the facts, the waiting response, a form posting to the item', () => {
  const html = itemPage(frame, item, [waiting])
  expect(html).toContain('Offline copy, last synced 24 Nov 2026, 09:14')
  expect(html).toContain('#7 Missing fire stop &#60;img src=x onerror=alert(1)&#62;')
  expect(html).not.toContain('<img')
  expect(html).toContain('Level &#60;B2&#62; walk')
  expect(html).toContain('Untitled Project')
  expect(html).toContain('Waiting to send')
  expect(html).toContain('Sealed &#60;/li&#62; &#38; done')
  expect(html).toContain('1 photo · asks to close')
  expect(html).toContain(`<form method="post" action="/items/${item.id}" enctype="multipart/form-data"`)
  expect(html).toContain('name="requestClose"')
  // The stylesheet cannot close its own element.
  expect(html).not.toContain('</style><script>')
  expect(html.split('</style>')[1]).not.toMatch(/<script/i)
})

test('a closed item takes no response; a refused entry shows its reason; errors keep the text', () => {
  expect(itemPage(frame, { ...item, status: 'closed' }, [])).toContain('This item is closed.')
  expect(itemPage(frame, { ...item, status: 'closed' }, [])).not.toContain('<form')
  const refused = itemPage(frame, item, [{ ...waiting, state: 'refused', refusal: 'The item was closed.' }])
  expect(refused).toContain('Not sent')
  expect(refused).toContain('The item was closed.')
  const invalid = itemPage(frame, item, [], { body: '  ', requestClose: true, errors: ['Write your response.'] })
  expect(invalid).toContain('role="alert"')
  expect(invalid).toContain('Write your response.')
  expect(invalid).toContain('aria-invalid="true"')
  expect(invalid).toMatch(/name="requestClose" value="on" checked/)
})

test('lists, a report, and what the copy does not hold', () => {
  expect(assignedPage(frame, [item])).toContain(`href="/items/${item.id}"`)
  expect(assignedPage(frame, [])).toContain('No items assigned to you are in the offline copy.')
  const report = { id: item.reportId, projectId: 'p', projectTitle: 'Quay', title: null } as Report
  expect(reportPage(frame, report, [item])).toContain('Untitled Report')
  expect(missingPage(frame, true)).toContain('This page is not in the offline copy on this device.')
  expect(missingPage({ ...frame, lastSyncedAt: null }, false)).toContain('Offline copy, last synced never')
})
