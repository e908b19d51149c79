import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { Member, Project } from '~/lib/reporting/types'
import { pngImage } from '../helpers/photos'
import { bound, checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal, type Viewport } from './harness'
import { demoAdminApi, enterAdminCode, expectScreen, JOURNEY_VARIANTS, openDocumentsLink, openMainDestination, type PortalApi, signIn } from './steps'

/**
 * Issue 31's whole journey, as the two people do it, from the dashboard and without typing an
 * address: a document controller uploads P01 and starts a review; the reviewer finds it from the
 * dashboard (the bell counts it too) and approves it for construction; the rule book issues C01; the
 * controller sends C01 by transmittal to a party; its member finds it from the dashboard and
 * acknowledges it. Set-up through the API is what an administrator configures once: the review
 * template, and the party with its member.
 */

let portal: Portal
let browser: Browser
let admin: PortalApi
let templateName: string

beforeAll(async () => {
  portal = await startPortal()
  browser = await launchBrowser()
  admin = await demoAdminApi(portal.baseUrl)
  const members = await admin.call<{ items: Member[] }>('GET', '/api/members')
  const sam = members.items.find((m) => m.email === DEMO.user.email)
  if (!sam) throw new Error('the demo user is not a member')
  templateName = `Construction check ${hex(3)}`
  await admin.call('POST', '/api/workflow-templates', {
    name: templateName,
    steps: [
      {
        name: 'Design check',
        mode: 'serial',
        consolidate: 'strictest',
        reviewers: [{ type: 'user', userId: sam.userId }],
        dueDays: 5,
        outcomes: [
          { kind: 'approved', label: 'Approved for construction', status: 'A1' },
          { kind: 'rejected', label: 'Rejected', status: 'S4' },
        ],
        onReject: { to: 'author' },
      },
    ],
  })
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

const hex = (bytes: number) => randomBytes(bytes).toString('hex')

/** A project of the controller's with a contractor (lead appointed party) whose one person is the demo user. */
async function projectWithParty() {
  const code = `K${hex(2).toUpperCase()}`
  const project = await admin.call<Project>('POST', '/api/projects', { title: `Wharf ${hex(3)}`, code })
  const members = await admin.call<{ items: Member[] }>('GET', '/api/members')
  const sam = members.items.find((m) => m.email === DEMO.user.email)
  if (!sam) throw new Error('the demo user is not a member')
  const partyName = `Quayside Builders ${hex(2)}`
  const party = await admin.call<{ id: string }>('POST', `/api/projects/${project.id}/parties`, { name: partyName, role: 'lead-appointed', code: 'CON' })
  await admin.call('PUT', `/api/parties/${party.id}/members`, { members: [{ userId: sam.userId, lead: true }] })
  return { project: { ...project, title: project.title ?? '' }, code, partyName }
}

const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)

describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('P01 uploaded and reviewed, approved for construction from the dashboard, C01 issued and sent to a party, whose member finds and acknowledges it from the dashboard', { timeout: bound(180_000) }, async () => {
    const { project, code, partyName } = await projectWithParty()
    const number = `${code}-ARC-ZZ-01-DR-A-0201`
    const controller = await newJourneyContext(browser, { javaScript, viewport: viewport as Viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => controller.close())
    const reviewer = await newJourneyContext(browser, { javaScript, viewport: viewport as Viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => reviewer.close())
    const a = controller.page
    const s = reviewer.page

    // ---- The controller uploads P01 into the project, from the dashboard ----
    await a.goto('/')
    await signIn(a, DEMO.admin.email, DEMO.admin.password, { admin: true })
    await enterAdminCode(a)
    await expectScreen(a, 'Dashboard')
    await openMainDestination(a, 'Documents')
    await expectScreen(a, 'Documents')
    const switcher = a.getByRole('form', { name: 'Choose a project' })
    await switcher.getByLabel('Project').selectOption({ label: project.title })
    await switcher.getByRole('button', { name: 'Open project' }).click()
    await a.getByRole('heading', { level: 2, name: project.title }).waitFor()
    const upload = a.getByRole('region', { name: 'Upload document' })
    await upload.getByLabel('Number', { exact: true }).fill(number)
    await upload.getByLabel('Title', { exact: true }).fill('Quay wall general arrangement')
    await upload.getByLabel('File', { exact: true }).setInputFiles({ name: 'quay-wall.png', mimeType: 'image/png', buffer: pngImage(16, 12, 31) })
    await upload.getByRole('button', { name: 'Upload document' }).click()
    await expectScreen(a, number)
    await a.getByText(`Document ${number} uploaded as P01.`).waitFor()

    // ---- …and starts its review on the document's page ----
    const reviews = a.getByRole('region', { name: 'Reviews' })
    const choose = reviews.getByRole('form', { name: 'Choose a workflow template' })
    await choose.getByLabel('Workflow template').selectOption({ label: `${templateName} (version 1)` })
    await choose.getByRole('button', { name: 'Propose reviewers' }).click()
    const start = reviews.getByRole('form', { name: 'Start review' })
    await start.waitFor()
    expect(await start.getByRole('group', { name: 'Step 1: Design check' }).getByLabel(DEMO.user.displayName).isChecked()).toBe(true)
    await checkAccessibility(a)
    await start.getByRole('button', { name: 'Start review' }).click()
    await expectScreen(a, `Review of ${number} P01`)
    expect(await fitsTheScreen(a)).toBe(true)

    // ---- The reviewer finds it from the dashboard (the bell counts it) and approves it for construction ----
    await s.goto('/')
    await signIn(s, DEMO.user.email, DEMO.user.password)
    await expectScreen(s, 'Dashboard')
    expect(await s.getByRole('banner').getByRole('link', { name: /^Notifications/ }).getAttribute('aria-label')).toMatch(/^Notifications, \d+ unread$/)
    await s.getByRole('link', { name: /Reviews waiting for me/ }).click()
    await expectScreen(s, 'Inbox')
    const task = s.getByRole('listitem', { name: `Review of ${number} P01` })
    await task.getByRole('link', { name: `Review of ${number} P01` }).click()
    await expectScreen(s, `Review of ${number} P01`)
    const approve = s.getByRole('form', { name: 'Approve' })
    await approve.getByLabel('Outcome').selectOption({ label: 'Approved for construction (sets A1)' })
    await approve.getByRole('button', { name: 'Approve' }).click()
    await s.getByText('Review approved: Approved for construction.', { exact: false }).waitFor()
    expect(await fitsTheScreen(s)).toBe(true)

    // ---- The rule book issued C01: the controller sees it on the document, from the register ----
    await openMainDestination(a, 'Documents')
    await expectScreen(a, 'Documents')
    await a.getByRole('link', { name: number }).first().click()
    await expectScreen(a, number)
    await a.getByText('C01, issued', { exact: false }).waitFor()

    // ---- …and sends C01 by transmittal to the party, through Issue documents ----
    await openMainDestination(a, 'Documents')
    await expectScreen(a, 'Documents')
    await openDocumentsLink(a, viewport, /^Issue documents$/)
    await expectScreen(a, 'Issue documents')
    await a.getByRole('form', { name: 'Start issuing' }).getByRole('button', { name: 'Start' }).click()
    const picks = a.getByRole('form', { name: 'Choose revisions' })
    await picks.getByRole('checkbox', { name: `Choose ${number} C01` }).check()
    await picks.getByRole('button', { name: 'Next: Recipients' }).click()
    const recipients = a.getByRole('form', { name: 'Recipients' })
    await recipients.getByRole('checkbox', { name: new RegExp(partyName) }).check()
    await recipients.getByRole('button', { name: 'Next: Purpose and message' }).click()
    const message = a.getByRole('form', { name: 'Purpose and message' })
    const subject = `Quay wall for construction ${hex(2)}`
    await message.getByLabel('Purpose').selectOption({ label: 'For construction' })
    await message.getByLabel('Subject').fill(subject)
    await message.getByRole('button', { name: 'Next: Review and send' }).click()
    await a.getByRole('region', { name: 'Revisions to send' }).getByRole('link', { name: number }).waitFor()
    await checkAccessibility(a)
    await a.getByRole('button', { name: 'Send transmittal' }).click()
    // C01 at A1 is fit for construction: sent without a warning to confirm.
    await a.getByText(/-TRN-\d{4} sent to 1 recipient\./).waitFor()
    const transmittalNumber = ((await a.getByRole('heading', { level: 1 }).textContent()) ?? '').trim()
    expect(transmittalNumber).toMatch(new RegExp(`^${code}-TRN-\\d{4}$`))
    expect(await fitsTheScreen(a)).toBe(true)

    // ---- The party's member finds it from the dashboard and acknowledges it ----
    await openMainDestination(s, 'Dashboard')
    await expectScreen(s, 'Dashboard')
    await s.getByRole('link', { name: /Transmittals to acknowledge/ }).click()
    await expectScreen(s, 'Inbox')
    await s.getByRole('listitem', { name: `Transmittal ${transmittalNumber} ${subject}` }).getByRole('link').click()
    await expectScreen(s, transmittalNumber)
    await s.getByRole('link', { name: number }).first().waitFor()
    await s.getByRole('region', { name: 'Your part' }).getByRole('button', { name: 'Acknowledge receipt' }).click()
    await s.getByText(`You acknowledged ${transmittalNumber}.`).waitFor()
    expect(await fitsTheScreen(s)).toBe(true)

    // ---- The controller sees the acknowledgement on the transmittal ----
    await a.reload()
    await expectScreen(a, transmittalNumber)
    await a.getByRole('row', { name: new RegExp(DEMO.user.displayName) }).getByText('Acknowledged', { exact: true }).waitFor()

    controller.assertNoConsoleErrors()
    reviewer.assertNoConsoleErrors()
  })
})
