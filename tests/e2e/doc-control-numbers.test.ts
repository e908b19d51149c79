import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { Transmittal } from '~/lib/doc-control/types'
import type { DocumentDetail, Revision } from '~/lib/documents/types'
import type { Member, Project } from '~/lib/reporting/types'
import { pngImage } from '../helpers/photos'
import { bound, checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal, type Viewport } from './harness'
import { demoUserApi, enterAdminCode, expectScreen, JOURNEY_VARIANTS, openDocumentsLink, openMainDestination, signIn } from './steps'

/**
 * Numbers (docs/doc-control.md "The rule book", docs/documents.md "Screens"): a document controller
 * uploads a drawing whose number they build from the project's codes, and renumbers a drawing that
 * was sent by transmittal (its number is locked), with a reason; the one person who received it is
 * told. From the dashboard, without typing an address.
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

/** A project of Sam's with a drawing at P01 (S2, shared) that Sam sent to Alex by transmittal, so its number is locked. */
async function sentDrawing() {
  const { call } = await demoUserApi(portal.baseUrl)
  const code = `R${hex(2).toUpperCase()}`
  const project = await call<Project>('POST', '/api/projects', { title: `Riverside ${hex(3)}`, code })
  const number = `${code}-ARC-ZZ-01-DR-A-0101`
  const doc = await call<DocumentDetail>('POST', `/api/projects/${project.id}/documents`, { number, title: 'Level 1 general arrangement' })
  const form = new FormData()
  form.append('code', 'P01')
  form.append('status', 'S2')
  form.append('file', new File([new Uint8Array(pngImage(16, 12, 21))], 'level-1.png', { type: 'image/png' }))
  const revision = await call<Revision>('POST', `/api/documents/${doc.id}/revisions`, form)
  const members = await call<{ items: Member[] }>('GET', '/api/members')
  const alex = members.items.find((m) => m.email === DEMO.admin.email)
  if (!alex) throw new Error('the demo admin is not a member')
  const transmittal = await call<Transmittal>('POST', `/api/projects/${project.id}/transmittals`, { subject: 'Level 1 for information', revisionIds: [revision.id] })
  await call('PUT', `/api/transmittals/${transmittal.id}/recipients`, { userIds: [alex.userId], partyIds: [] })
  await call('POST', `/api/transmittals/${transmittal.id}/send`, {})
  return { project: { ...project, title: project.title ?? '' }, code, number }
}

/** The texts of the errors a field's aria-describedby points at. */
async function errorsOf(page: Page, field: ReturnType<Page['getByLabel']>): Promise<string> {
  const describedBy = (await field.getAttribute('aria-describedby')) ?? ''
  const texts = await Promise.all(
    describedBy
      .split(' ')
      .filter((id) => id.endsWith('-error'))
      .map((id) => page.locator(`[id="${id}"]`).textContent()),
  )
  return texts.join(' ')
}

describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('a controller builds a new drawing’s number from the project’s codes, renumbers a sent drawing with a reason, and sets how transmittals are numbered', { timeout: bound(150_000) }, async () => {
    const { project, code, number } = await sentDrawing()
    const journey = await newJourneyContext(browser, { javaScript, viewport: viewport as Viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => journey.close())
    const { page } = journey

    await page.goto('/')
    await signIn(page, DEMO.admin.email, DEMO.admin.password, { admin: true })
    await enterAdminCode(page)
    await expectScreen(page, 'Dashboard')
    await openMainDestination(page, 'Documents')
    await expectScreen(page, 'Documents')
    const switcher = page.getByRole('form', { name: 'Choose a project' })
    await switcher.getByLabel('Project').selectOption({ label: project.title })
    await switcher.getByRole('button', { name: 'Open project' }).click()
    await page.getByRole('heading', { level: 2, name: project.title }).waitFor()

    // The number builder: one select per naming field, the serial typed; Number left blank.
    const upload = page.getByRole('region', { name: 'Upload document' })
    const built = `${code}-STR-Z1-02-DR-S-0102`
    await upload.getByLabel('Number part: Project').selectOption(code)
    await upload.getByLabel('Number part: Originator').selectOption('STR')
    await upload.getByLabel('Number part: Volume/System').selectOption('Z1')
    await upload.getByLabel('Number part: Level/Location').selectOption('02')
    await upload.getByLabel('Number part: Type').selectOption('DR')
    await upload.getByLabel('Number part: Role').selectOption('S')
    await upload.getByLabel('Number part: Number').fill('0102')
    // With script Number follows the parts; without, the server builds it on submit.
    expect(await upload.getByLabel('Number', { exact: true }).inputValue()).toBe(javaScript ? built : '')
    await upload.getByLabel('Title', { exact: true }).fill('Level 2 slab')
    await upload.getByLabel('File', { exact: true }).setInputFiles({ name: 'level-2.png', mimeType: 'image/png', buffer: pngImage(16, 12, 22) })
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await checkAccessibility(page)
    await upload.getByRole('button', { name: 'Upload document' }).click()
    await expectScreen(page, built)
    await page.getByText(`Document ${built} uploaded as P01.`).waitFor()

    // The sent drawing, from the register of the project (the project stays chosen).
    await openMainDestination(page, 'Documents')
    await expectScreen(page, 'Documents')
    await page.getByRole('link', { name: number }).first().click()
    await expectScreen(page, number)

    // Renumber asks for a reason; the number typed is kept.
    const renumber = page.getByRole('form', { name: 'Renumber' })
    const renumbered = `${code}-ARC-ZZ-01-DR-A-0111`
    await renumber.getByLabel('New number').fill(renumbered)
    // Spaces pass the browser's own required check; the reason is still missing.
    await renumber.getByLabel('Reason').fill('   ')
    await renumber.getByRole('button', { name: 'Renumber' }).click()
    await expect.poll(() => errorsOf(page, renumber.getByLabel('Reason'))).toContain('Say why the document is renumbered')
    expect(await renumber.getByLabel('New number').inputValue()).toBe(renumbered)
    await checkAccessibility(page)

    await renumber.getByLabel('Reason').fill('Sheet series of level 1 renumbered by the client.')
    await renumber.getByRole('button', { name: 'Renumber' }).click()
    await expectScreen(page, renumbered)
    await page.getByText(`${number} is now ${renumbered}. A mail to the 1 person who received it by transmittal is queued in the outbox.`).waitFor()
    const history = page.getByRole('list', { name: 'Number history' })
    await history.getByText(number, { exact: false }).first().waitFor()
    await history.getByText('Sheet series of level 1 renumbered by the client.', { exact: false }).waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await checkAccessibility(page)

    // The project's transmittal numbers: its naming code, TRN and four digits; a manager changes the format.
    await openMainDestination(page, 'Documents')
    await expectScreen(page, 'Documents')
    await openDocumentsLink(page, viewport, /^Transmittals$/)
    await expectScreen(page, 'Transmittals')
    const numbering = page.getByRole('region', { name: 'Transmittal numbers' })
    await numbering.getByText(`${code}-TRN-0002`, { exact: true }).waitFor()
    await numbering.getByLabel('Number format').fill('{project}-T-{sequence}')
    await numbering.getByRole('button', { name: 'Save number format' }).click()
    await expect.poll(() => errorsOf(page, page.getByRole('region', { name: 'Transmittal numbers' }).getByLabel('Number format'))).toContain('{sequence} is not a placeholder')
    expect(await numbering.getByLabel('Number format').inputValue()).toBe('{project}-T-{sequence}')
    await checkAccessibility(page)
    await numbering.getByLabel('Number format').fill('{project}-T-{seq:3}')
    if (javaScript) await numbering.getByText(`With this format the next transmittal is ${code}-T-002.`).waitFor()
    await numbering.getByRole('button', { name: 'Save number format' }).click()
    await page.getByText(`Number format saved: the next transmittal will be ${code}-T-002.`).waitFor()
    await numbering.getByText(`${code}-T-002`, { exact: true }).waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)

    journey.assertNoConsoleErrors()
  })
})
