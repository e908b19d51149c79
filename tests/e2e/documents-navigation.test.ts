import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { WorkflowTemplate } from '~/lib/doc-control/types'
import type { DocumentDetail, Revision } from '~/lib/documents/types'
import type { Project } from '~/lib/reporting/types'
import { pngImage } from '../helpers/photos'
import { bound, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { demoUserApi, expectScreen, JOURNEY_VARIANTS, openDocumentsLink, openMainDestination, signIn } from './steps'

/**
 * Finding document control (docs/doc-control.md "Finding your way"): a reviewer with a review
 * waiting finds it from the dashboard and from the Documents sub-navigation without typing an
 * address; a project chosen once stays chosen across the screens and for the next visit.
 */

let portal: Portal
let browser: Browser

beforeAll(async () => {
  portal = await startPortal()
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

const hex = (bytes: number) => randomBytes(bytes).toString('hex')

/** Two projects of the demo user; in the first a drawing at P01 under review by read-write members (the seeded "Design review", whose first step is theirs), so the demo user has a task. */
async function reviewWaiting() {
  const { call } = await demoUserApi(portal.baseUrl)
  const code = `N${hex(2).toUpperCase()}`
  const project = await call<Project>('POST', '/api/projects', { title: `Quayside ${hex(3)}`, code })
  const other = await call<Project>('POST', '/api/projects', { title: `Lockside ${hex(3)}`, code: `M${hex(2).toUpperCase()}` })
  const number = `${code}-ARC-ZZ-01-DR-A-0101`
  const doc = await call<DocumentDetail>('POST', `/api/projects/${project.id}/documents`, { number, title: 'Level 1 general arrangement' })
  const form = new FormData()
  form.append('code', 'P01')
  form.append('status', 'S0')
  form.append('file', new File([new Uint8Array(pngImage(16, 12, 11))], 'level-1.png', { type: 'image/png' }))
  const revision = await call<Revision>('POST', `/api/documents/${doc.id}/revisions`, form)
  const templates = await call<{ items: WorkflowTemplate[] }>('GET', '/api/workflow-templates')
  const template = templates.items.find((t) => t.name === 'Design review')
  if (!template) throw new Error('the seeded template "Design review" is missing')
  await call('POST', `/api/projects/${project.id}/workflows`, { templateId: template.id, revisionIds: [revision.id] })
  return { project, other, number }
}

describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('the reviewer finds the review from the dashboard and from Documents; the project chosen stays chosen', { timeout: bound(120_000) }, async () => {
    const { project, other, number } = await reviewWaiting()
    const journey = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => journey.close())
    const { page } = journey

    await page.goto('/')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Dashboard')
    const reviews = page.getByRole('link', { name: /Reviews waiting for me/ })
    expect(Number((await reviews.textContent())?.replace(/\D/g, ''))).toBeGreaterThanOrEqual(1)
    await expect(page.getByRole('link', { name: /Transmittals to acknowledge/ }).count()).resolves.toBe(1)
    await expect(page.getByRole('link', { name: /Overdue deliverables/ }).count()).resolves.toBe(1)

    // From the dashboard's figure to the review tasks.
    await reviews.click()
    await expectScreen(page, 'Inbox')
    await page.getByText(number).first().waitFor()

    // From the Documents tab, through its sub-navigation (the count shows there too).
    await openMainDestination(page, 'Documents')
    await expectScreen(page, 'Documents')
    await openDocumentsLink(page, viewport, /^Review inbox/)
    await expectScreen(page, 'Inbox')
    await page.getByText(number).first().waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)

    // The project switcher in the header: chosen once, kept across the screens…
    const switcher = page.getByRole('form', { name: 'Choose a project' })
    await switcher.getByLabel('Project').selectOption({ label: other.title ?? '' })
    await switcher.getByRole('button', { name: 'Open project' }).click()
    await page.waitForURL((url) => url.searchParams.get('projectId') === other.id)
    await openDocumentsLink(page, viewport, /^Transmittals$/)
    await expectScreen(page, 'Transmittals')
    expect(new URL(page.url()).searchParams.get('projectId')).toBe(other.id)
    await expect(switcher.getByLabel('Project').inputValue()).resolves.toBe(other.id)

    // …and remembered for the next visit: the Documents tab opens it again.
    await openMainDestination(page, 'Dashboard')
    await expectScreen(page, 'Dashboard')
    await openMainDestination(page, 'Documents')
    await expectScreen(page, 'Documents')
    await page.waitForURL((url) => url.searchParams.get('projectId') === other.id)
    await expect(switcher.getByLabel('Project').inputValue()).resolves.toBe(other.id)
    expect(project.id).not.toBe(other.id)

    journey.assertNoConsoleErrors()
  })
})
