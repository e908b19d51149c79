import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Locator, Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { DocumentDetail, Revision } from '~/lib/documents/types'
import type { Project } from '~/lib/reporting/types'
import { pngImage } from '../helpers/photos'
import { bound, checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { demoUserApi, enterAdminCode, expectScreen, LONG_JOURNEY_VARIANTS, signIn } from './steps'

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

/** A journey here takes many page loads (every step of the wizard is one without JavaScript): a bound for a stuck machine. */
const JOURNEY_LIMIT_MS = bound(180_000)

const hex = (bytes: number) => randomBytes(bytes).toString('hex')

/** A project of Sam's with a code, and documents in it, each with a P01 revision (suitability S2, so Shared). */
async function projectWithDocuments(count: number) {
  const { call } = await demoUserApi(portal.baseUrl)
  const code = `T${hex(2).toUpperCase()}`
  const project = await call<Project>('POST', '/api/projects', { title: `Harbour ${hex(3)}`, code })
  const documents: Array<{ id: string; number: string }> = []
  for (let n = 1; n <= count; n++) {
    const number = `${code}-ARC-ZZ-0${n}-DR-A-00${10 + n}`
    const doc = await call<DocumentDetail>('POST', `/api/projects/${project.id}/documents`, { number, title: `Level ${n} plan` })
    const form = new FormData()
    form.append('code', 'P01')
    form.append('status', 'S2')
    form.append('file', new File([new Uint8Array(pngImage(16, 12, n))], `level-${n}.png`, { type: 'image/png' }))
    await call<Revision>('POST', `/api/documents/${doc.id}/revisions`, form)
    documents.push({ id: doc.id, number })
  }
  return { project: { ...project, title: project.title ?? '' }, documents }
}

/** The texts of the errors a control's aria-describedby points at. */
async function errorsOf(control: Locator, page: Page): Promise<string> {
  const describedBy = (await control.getAttribute('aria-describedby')) ?? ''
  const texts = await Promise.all(
    describedBy
      .split(' ')
      .filter(Boolean)
      .map((id) => page.locator(`[id="${id}"]`).textContent()),
  )
  return texts.join(' ')
}

describe.each(LONG_JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test(
    'a document controller makes a set of two revisions, publishes it with a message and sees its revisions Published',
    async () => {
      const { project, documents } = await projectWithDocuments(2)
      const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
      onTestFinished(() => j.close())
      const { page } = j

      await page.goto(`/doc-control/sets?projectId=${project.id}`)
      await signIn(page, DEMO.user.email, DEMO.user.password)
      await expectScreen(page, 'Sets')
      await page.getByRole('heading', { name: 'No sets yet.' }).waitFor()

      const name = `Tender issue ${hex(2)}`
      const create = page.getByRole('form', { name: 'New set' })
      await create.getByLabel('Name').fill(name)
      await create.getByRole('button', { name: 'Create set' }).click()
      await expectScreen(page, name)
      await page.getByText(`Set “${name}” created. Choose its revisions.`).waitFor()
      await page.getByRole('heading', { name: 'No revisions yet.' }).waitFor()

      // Both documents' current revisions, ticked and added.
      const choose = page.getByRole('form', { name: 'Choose revisions' })
      for (const doc of documents) await choose.getByRole('checkbox', { name: `Choose ${doc.number} P01` }).check()
      await choose.getByRole('button', { name: 'Add ticked revisions' }).click()
      await page.getByText('2 revisions added.').waitFor()
      const chosen = page.getByRole('region', { name: 'Revisions of the set' })
      for (const doc of documents) {
        const row = chosen.getByRole('row', { name: new RegExp(doc.number) })
        await row.getByText('Shared', { exact: true }).waitFor()
      }
      await checkAccessibility(page)

      // Publishing says first that it freezes the set; the publish body goes with it.
      await page.getByText('Publish…').click()
      const publish = page.getByRole('form', { name: 'Publish set' })
      await publish.getByText('Publishing freezes the set', { exact: false }).waitFor()
      await publish.getByLabel('Purpose').selectOption({ label: 'For tender' })
      await publish.getByLabel('Message').fill('Drawings for the tender of the harbour works.')
      await checkAccessibility(page)
      await publish.getByRole('button', { name: 'Yes, publish and freeze' }).click()
      await page.getByText(`“${name}” published: 2 revisions stamped Published.`).waitFor()
      await page.getByText('This set is published').waitFor()
      for (const doc of documents) {
        const row = page.getByRole('region', { name: 'Revisions of the set' }).getByRole('row', { name: new RegExp(doc.number) })
        await row.getByText('Published', { exact: true }).waitFor()
      }
      await page.getByText('Drawings for the tender of the harbour works.').waitFor()
      await page.getByText('For tender', { exact: true }).waitFor()
      // Read-only now: nothing to add, remove or publish; a new set can be derived.
      expect(await page.getByRole('form', { name: 'Choose revisions' }).count()).toBe(0)
      expect(await page.getByRole('button', { name: /^Remove / }).count()).toBe(0)
      expect(await page.getByText('Publish…').count()).toBe(0)
      await page.getByRole('form', { name: 'Derive new set' }).waitFor()
      await checkAccessibility(page)

      // Issued as it is: the wizard starts from the set, its revisions chosen.
      await page.getByRole('link', { name: 'Issue this set' }).click()
      await expectScreen(page, 'Issue documents')
      const start = page.getByRole('form', { name: 'Start issuing' })
      expect(await start.getByLabel('Start from a set (optional)').locator('option:checked').textContent()).toBe(`${name} (published)`)
      await start.getByRole('button', { name: 'Start' }).click()
      await page.getByRole('heading', { name: 'Chosen revisions (2)' }).waitFor()
      for (const doc of documents) await page.getByRole('region', { name: 'Chosen revisions', exact: true }).getByRole('link', { name: doc.number }).waitFor()
      j.assertNoConsoleErrors()
    },
    JOURNEY_LIMIT_MS,
  )

  test(
    'a transmittal goes out through the wizard, is packaged as a ZIP, and its recipient’s acknowledgement shows on the sender’s side',
    async () => {
      const { project, documents } = await projectWithDocuments(2)
      const [first, second] = documents
      if (!first || !second) throw new Error('two documents expected')
      const sam = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
      onTestFinished(() => sam.close())
      const { page } = sam

      await page.goto(`/doc-control/wizard?projectId=${project.id}`)
      await signIn(page, DEMO.user.email, DEMO.user.password)
      await expectScreen(page, 'Issue documents')
      await page.getByRole('form', { name: 'Start issuing' }).getByRole('button', { name: 'Start' }).click()

      // Step 1: the second document's current revision.
      const steps = page.getByRole('list', { name: 'Steps' })
      await steps.locator('[aria-current="step"]', { hasText: 'Choose revisions' }).waitFor()
      expect(new URL(page.url()).searchParams.get('transmittalId')).toMatch(/^[0-9a-f-]{36}$/)
      await checkAccessibility(page)
      const choose = page.getByRole('form', { name: 'Choose revisions' })
      await choose.getByRole('checkbox', { name: `Choose ${second.number} P01` }).check()
      await choose.getByRole('button', { name: 'Next: Recipients' }).click()
      await steps.locator('[aria-current="step"]', { hasText: 'Recipients' }).waitFor()

      // The draft is in the server: a reload (or another device) continues at this step.
      await page.goto(page.url())
      await steps.locator('[aria-current="step"]', { hasText: 'Recipients' }).waitFor()

      // Step 2: nobody chosen is a problem of the step, said next to the choices.
      const recipients = page.getByRole('form', { name: 'Recipients' })
      await recipients.getByRole('button', { name: 'Next: Purpose and message' }).click()
      await page.getByText('Choose at least one person or party.').waitFor()
      await checkAccessibility(page)
      await page
        .getByRole('form', { name: 'Recipients' })
        .getByRole('checkbox', { name: new RegExp(DEMO.admin.displayName) })
        .check()
      await page.getByRole('form', { name: 'Recipients' }).getByRole('button', { name: 'Next: Purpose and message' }).click()

      // Step 3: a response date in the past comes back next to its field, with what was typed kept.
      const message = page.getByRole('form', { name: 'Purpose and message' })
      await message.waitFor()
      const subject = `Tender drawings ${hex(2)}`
      await message.getByLabel('Purpose').selectOption({ label: 'For tender' })
      await message.getByLabel('Subject').fill(subject)
      await message.getByLabel('Message (optional)').fill('Please confirm receipt of the level 2 plan.')
      await message.getByLabel('Response due (optional)').fill('2020-01-31')
      await message.getByRole('button', { name: 'Next: Review and send' }).click()
      const due = page.getByRole('form', { name: 'Purpose and message' }).getByLabel('Response due (optional)')
      await expect.poll(() => errorsOf(due, page)).toContain('Give a date from today on.')
      expect(await due.getAttribute('aria-invalid')).toBe('true')
      expect(await page.getByRole('form', { name: 'Purpose and message' }).getByLabel('Subject').inputValue()).toBe(subject)
      expect(await page.getByRole('form', { name: 'Purpose and message' }).getByLabel('Message (optional)').inputValue()).toBe('Please confirm receipt of the level 2 plan.')
      await checkAccessibility(page)

      // Back is never blocked by a field to fix, and keeps what was typed: the recipients are as chosen, the subject comes back.
      await page.getByRole('form', { name: 'Purpose and message' }).getByRole('button', { name: 'Back: Recipients' }).click()
      await steps.locator('[aria-current="step"]', { hasText: 'Recipients' }).waitFor()
      expect(
        await page
          .getByRole('form', { name: 'Recipients' })
          .getByRole('checkbox', { name: new RegExp(DEMO.admin.displayName) })
          .isChecked(),
      ).toBe(true)
      await page.getByRole('form', { name: 'Recipients' }).getByRole('button', { name: 'Next: Purpose and message' }).click()
      await steps.locator('[aria-current="step"]', { hasText: 'Purpose and message' }).waitFor()
      expect(await page.getByRole('form', { name: 'Purpose and message' }).getByLabel('Subject').inputValue()).toBe(subject)
      await due.fill('2099-12-31')
      await page.getByRole('form', { name: 'Purpose and message' }).getByRole('button', { name: 'Next: Review and send' }).click()

      // Step 4: everything listed, then sent.
      await steps.locator('[aria-current="step"]', { hasText: 'Review and send' }).waitFor()
      await page.getByText(subject, { exact: true }).waitFor()
      await page.getByRole('region', { name: 'Revisions to send' }).getByRole('link', { name: second.number }).waitFor()
      expect(await page.getByRole('region', { name: 'Revisions to send' }).getByRole('link', { name: first.number }).count()).toBe(0)
      await page.getByRole('list', { name: 'Recipients' }).getByText(DEMO.admin.displayName).waitFor()
      await checkAccessibility(page)
      await page.getByRole('button', { name: 'Send transmittal' }).click()
      // The revisions are S2 (shared, not stage-approved): the rule book warns before a tender issue,
      // and sending goes on only once the controller confirms; the warning is kept on the transmittal.
      await page.getByText('Not suitable for tender?').waitFor()
      await page.getByRole('checkbox', { name: 'Send it for tender anyway' }).check()
      await page.getByRole('button', { name: 'Send transmittal' }).click()
      await page.getByText(/-TRN-\d{4} sent to 1 recipient\./).waitFor()
      const number = (await page.getByRole('heading', { level: 1 }).textContent()) ?? ''
      expect(number).toMatch(new RegExp(`^${project.code}-TRN-\\d{4}$`))
      const transmittalUrl = page.url()
      await page.getByText('1 recipient has not opened it yet').waitFor()
      await page
        .getByRole('row', { name: new RegExp(DEMO.admin.displayName) })
        .getByText('Not opened yet')
        .waitFor()
      await checkAccessibility(page)

      // The ZIP: started, its progress shown, then a download link (polled with JavaScript, refreshed by hand without).
      const zip = page.getByRole('region', { name: 'ZIP of the files' })
      await zip.getByRole('button', { name: 'Prepare ZIP' }).click()
      await zip
        .getByRole('status')
        .getByText(/files \d+\/\d+/)
        .waitFor()
      expect(await zip.getByRole('progressbar', { name: 'ZIP prepared' }).count()).toBe(1)
      const download = zip.getByRole('link', { name: 'Download ZIP' })
      if (javaScript) {
        await download.waitFor()
      } else {
        for (let attempt = 0; attempt < 200 && (await download.count()) === 0; attempt++) {
          const refresh = zip.getByRole('link', { name: 'Refresh status' })
          if ((await refresh.count()) > 0) await refresh.click()
          await page.waitForLoadState('load')
          await new Promise((resolve) => setTimeout(resolve, 250))
        }
        await download.waitFor()
      }
      // Every file done once ready.
      await zip.getByText(/files (\d+)\/\1\b/).waitFor()
      const zipFile = await sam.context.request.get(new URL((await download.getAttribute('href')) ?? '', portal.baseUrl).toString())
      expect(zipFile.status()).toBe(200)
      expect((await zipFile.body()).subarray(0, 2).toString('latin1')).toBe('PK')

      // Alex (the admin) received it: opening records it; acknowledging and responding are theirs.
      const alex = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
      onTestFinished(() => alex.close())
      await alex.page.goto(new URL(transmittalUrl).pathname + new URL(transmittalUrl).search)
      await signIn(alex.page, DEMO.admin.email, DEMO.admin.password)
      await enterAdminCode(alex.page, 'user')
      await expectScreen(alex.page, number)
      const part = alex.page.getByRole('region', { name: 'Your part' })
      await part.getByRole('button', { name: 'Acknowledge receipt' }).click()
      await alex.page.getByText(`You acknowledged ${number}.`).waitFor()
      await alex.page.getByRole('region', { name: 'Your part' }).getByText('You acknowledged it on', { exact: false }).waitFor()
      await alex.page.getByRole('region', { name: 'Your part' }).getByLabel('Your response').fill('Received, no comments.')
      await alex.page.getByRole('region', { name: 'Your part' }).getByRole('button', { name: 'Send response' }).click()
      await alex.page.getByText(`Your response to ${number} was sent.`).waitFor()
      await checkAccessibility(alex.page)
      alex.assertNoConsoleErrors()

      // Sam sees it: acknowledged and responded, nobody left unopened, 1/1 in the list.
      await page.goto(transmittalUrl)
      await expectScreen(page, number)
      const row = page.getByRole('row', { name: new RegExp(DEMO.admin.displayName) })
      await row.getByText('Responded', { exact: true }).waitFor()
      expect(await page.getByText('has not opened it yet', { exact: false }).count()).toBe(0)
      await page.getByText('Received, no comments.').first().waitFor()
      await page.goto(`/doc-control/transmittals?projectId=${project.id}`)
      await expectScreen(page, 'Transmittals')
      const listed = page.getByRole('row', { name: new RegExp(number) })
      await listed.getByText('1/1').waitFor()
      sam.assertNoConsoleErrors()
    },
    JOURNEY_LIMIT_MS,
  )
})
