import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { DocumentDetail, Revision } from '~/lib/documents/types'
import type { Project } from '~/lib/reporting/types'
import { pngImage } from '../helpers/photos'
import { bound, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { demoAdminApi, demoUserApi, expectScreen, JOURNEY_VARIANTS, type PortalApi, signIn } from './steps'

/**
 * In-app notifications (docs/settings-appearance-notifications.md "In-app notifications"): a
 * reviewer is assigned a review, sees the bell's count (live with JavaScript, on the next page
 * without), opens the notification from /notifications, lands on the review, and marks all read.
 */

let portal: Portal
let browser: Browser
let admin: PortalApi

beforeAll(async () => {
  portal = await startPortal()
  browser = await launchBrowser()
  // The administrator who starts the reviews, signed in once (an authentication code is accepted once).
  admin = await demoAdminApi(portal.baseUrl)
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

const hex = (bytes: number) => randomBytes(bytes).toString('hex')

/** A project with two drawings at P01 (made by the demo user), and a one-step template whose reviewer is the demo user. */
async function scene() {
  const { call, userId } = await demoUserApi(portal.baseUrl)
  // The demo user is the reviewer of every variant: each starts with nothing unread.
  await call('POST', '/api/notifications/read-all')
  const code = `N${hex(2).toUpperCase()}`
  const project = await call<Project>('POST', '/api/projects', { title: `Quay ${hex(3)}`, code })
  const revisions: { number: string; revisionId: string }[] = []
  for (const n of [1, 2]) {
    const number = `${code}-ARC-ZZ-0${n}-DR-A-0101`
    const doc = await call<DocumentDetail>('POST', `/api/projects/${project.id}/documents`, { number, title: `Level ${n} plan` })
    const form = new FormData()
    form.append('code', 'P01')
    form.append('status', 'S0')
    form.append('file', new File([new Uint8Array(pngImage(16, 12, 11))], `level-${n}.png`, { type: 'image/png' }))
    const revision = await call<Revision>('POST', `/api/documents/${doc.id}/revisions`, form)
    revisions.push({ number, revisionId: revision.id })
  }
  const template = await admin.call<{ id: string }>('POST', '/api/workflow-templates', {
    name: `Check ${hex(3)}`,
    steps: [
      {
        name: 'Design check',
        mode: 'serial',
        consolidate: 'strictest',
        reviewers: [{ type: 'user', userId }],
        dueDays: 5,
        outcomes: [
          { kind: 'approved', label: 'Approved', status: 'A1' },
          { kind: 'rejected', label: 'Rejected', status: 'S4' },
        ],
        onReject: { to: 'author' },
      },
    ],
  })
  const startReview = (revisionId: string) => admin.call<{ id: string }>('POST', `/api/projects/${project.id}/workflows`, { templateId: template.id, revisionIds: [revisionId] })
  return { project, code, revisions, startReview }
}

const bell = (page: Page) => page.getByRole('banner').getByRole('link', { name: /^Notifications/ })

describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('a reviewer is assigned a review, sees the bell count, opens the notification, lands on the review, and marks all read', { timeout: bound(120_000) }, async () => {
    const s = await scene()
    const [first, second] = s.revisions
    if (!first || !second) throw new Error('no revisions')
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/dashboard')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Dashboard')
    expect(await bell(page).getAttribute('aria-label')).toBe('Notifications, none unread')

    if (javaScript) {
      // Live: the count arrives through the hub, without a reload.
      await page.locator('[data-realtime-status="connected"]').waitFor()
      await s.startReview(first.revisionId)
      await page.getByRole('banner').getByRole('link', { name: 'Notifications, 1 unread' }).waitFor()
      await s.startReview(second.revisionId)
      await page.getByRole('banner').getByRole('link', { name: 'Notifications, 2 unread' }).waitFor()
    } else {
      await s.startReview(first.revisionId)
      await s.startReview(second.revisionId)
      // Without JavaScript the server renders the count with the next page.
      await page.getByRole('link', { name: 'Dashboard', exact: true }).first().click()
      await expectScreen(page, 'Dashboard')
    }
    expect(await bell(page).getAttribute('aria-label')).toBe('Notifications, 2 unread')
    expect(await page.getByTestId('notification-count').textContent()).toBe('2')

    await bell(page).click()
    await expectScreen(page, 'Notifications')
    const list = page.getByRole('list', { name: 'Notifications' })
    // Newest first.
    // Newest first (earlier variants' notifications, all read, come after this one's).
    const titles = (await list.getByRole('listitem').getByRole('button', { name: /^Review / }).allTextContents()).filter((title) => title.includes(s.code))
    expect(titles).toEqual([`Review ${second.number} P01: Design check`, `Review ${first.number} P01: Design check`])

    await list.getByRole('button', { name: `Review ${first.number} P01: Design check` }).click()
    await expectScreen(page, `Review of ${first.number} P01`)
    expect(await bell(page).getAttribute('aria-label')).toBe('Notifications, 1 unread')

    await bell(page).click()
    await expectScreen(page, 'Notifications')
    await page.getByRole('button', { name: 'Mark all as read' }).click()
    await page.getByText('Marked 1 notification as read.').waitFor()
    expect(await bell(page).getAttribute('aria-label')).toBe('Notifications, none unread')
    expect(await page.getByRole('button', { name: 'Mark all as read' }).count()).toBe(0)
    expect(await page.locator('[data-unread="true"]').count()).toBe(0)

    j.assertNoConsoleErrors()
  })
})
