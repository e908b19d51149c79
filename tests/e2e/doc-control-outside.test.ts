import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { DocumentDetail, Revision } from '~/lib/documents/types'
import type { Project } from '~/lib/reporting/types'
import { startSmtpServer, type TestSmtpServer } from '#tests/helpers/smtp'
import { pngImage } from '../helpers/photos'
import { bound, checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { demoUserApi, enterAdminCode, expectScreen, JOURNEY_VARIANTS, signIn } from './steps'

/**
 * Issue 32: a document controller adds an outside contact to a party and sends a revision by
 * transmittal; the contact opens the link of the mail (a real SMTP server) in a browser with no
 * session, downloads the file and the ZIP and acknowledges; the sender sees "Acknowledged by … at …".
 * Then a new revision supersedes the one sent, and the contact gets the notice: a mail whose link
 * opens their page, which names the new revision and where it comes from.
 */

let portal: Portal
let browser: Browser
let smtp: TestSmtpServer

beforeAll(async () => {
  smtp = await startSmtpServer()
  portal = await startPortal({
    env: { SMTP_URL: `smtp://${smtp.user}:${smtp.password}@${smtp.host}:${smtp.port}`, MAIL_FROM: 'Site Portal <no-reply@portal.test>' },
  })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
  await smtp?.close()
})

const JOURNEY_LIMIT_MS = bound(240_000)
const hex = (bytes: number) => randomBytes(bytes).toString('hex')

/** A project of Sam's with a code and one document at C01 (A1, published) after P01 (S2, shared). */
async function projectWithDocument() {
  const { call } = await demoUserApi(portal.baseUrl)
  const code = `X${hex(2).toUpperCase()}`
  const project = await call<Project>('POST', '/api/projects', { title: `Quay ${hex(3)}`, code })
  const number = `${code}-ARC-ZZ-01-DR-A-0101`
  const doc = await call<DocumentDetail>('POST', `/api/projects/${project.id}/documents`, { number, title: 'Quay level 1 plan' })
  const form = new FormData()
  form.append('code', 'P01')
  form.append('status', 'S2')
  form.append('file', new File([new Uint8Array(pngImage(16, 12, 3))], 'quay-1.png', { type: 'image/png' }))
  await call<Revision>('POST', `/api/documents/${doc.id}/revisions`, form)
  const published = new FormData()
  published.append('code', 'C01')
  published.append('status', 'A1')
  published.append('file', new File([new Uint8Array(pngImage(16, 12, 5))], 'quay-1-c01.png', { type: 'image/png' }))
  await call<Revision>('POST', `/api/documents/${doc.id}/revisions`, published)
  return { project, number, documentId: doc.id }
}

describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test(
    'an outside contact receives C01 by link, downloads it and acknowledges; the sender sees the receipt; P02 supersedes C01 and the contact gets the notice',
    async () => {
      const { project, number, documentId } = await projectWithDocument()
      const alex = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
      onTestFinished(() => alex.close())
      const { page } = alex

      // The party, and its outside contact.
      // Alex, the organisation's admin, manages the project's parties and sends.
      await page.goto(`/doc-control/parties?projectId=${project.id}`)
      await signIn(page, DEMO.admin.email, DEMO.admin.password, { admin: true })
      await enterAdminCode(page)
      await expectScreen(page, 'Parties')
      const partyName = `Quay Engineers ${hex(2)}`
      const addParty = page.getByRole('region', { name: 'Add a party' })
      await addParty.getByLabel('Name', { exact: true }).fill(partyName)
      await addParty.getByLabel('Role on the project').selectOption({ label: 'Lead appointed party' })
      await addParty.getByRole('button', { name: 'Add party' }).click()
      await page.getByText(`Party “${partyName}” added.`).waitFor()
      const email = `olive.${hex(3)}@outside.test`
      const contactForm = page.getByRole('form', { name: `Add an outside contact to ${partyName}` })
      // A wrong address (one the browser lets through) comes back next to its field, with what was typed kept.
      await contactForm.getByLabel('Name').fill('Olive Outsider')
      await contactForm.getByLabel('Company').fill('Outside Partners')
      await contactForm.getByLabel('E-mail').fill('olive@outside')
      await contactForm.getByRole('button', { name: 'Add contact' }).click()
      await page.getByText('Enter an e-mail address like name@example.com.').first().waitFor()
      expect(await page.getByRole('form', { name: `Add an outside contact to ${partyName}` }).getByLabel('Name').inputValue()).toBe('Olive Outsider')
      await page.getByRole('form', { name: `Add an outside contact to ${partyName}` }).getByLabel('E-mail').fill(email)
      await page.getByRole('form', { name: `Add an outside contact to ${partyName}` }).getByRole('button', { name: 'Add contact' }).click()
      await page.getByText(`Olive Outsider is an outside contact of ${partyName}`, { exact: false }).waitFor()
      await page.getByRole('list', { name: `Outside contacts of ${partyName}` }).getByText(email).waitFor()
      await checkAccessibility(page)

      // The transmittal, to the party.
      await page.goto(`/doc-control/wizard?projectId=${project.id}`)
      await expectScreen(page, 'Issue documents')
      await page.getByRole('form', { name: 'Start issuing' }).getByRole('button', { name: 'Start' }).click()
      await page.getByRole('form', { name: 'Choose revisions' }).getByRole('checkbox', { name: `Choose ${number} C01` }).check()
      await page.getByRole('form', { name: 'Choose revisions' }).getByRole('button', { name: 'Next: Recipients' }).click()
      const recipients = page.getByRole('form', { name: 'Recipients' })
      await recipients.getByText('1 outside contact (by a link in a mail)', { exact: false }).waitFor()
      await recipients.getByRole('checkbox', { name: new RegExp(partyName) }).check()
      await recipients.getByRole('button', { name: 'Next: Purpose and message' }).click()
      const message = page.getByRole('form', { name: 'Purpose and message' })
      const subject = `Quay plans ${hex(2)}`
      await message.getByLabel('Subject').fill(subject)
      await message.getByRole('button', { name: 'Next: Review and send' }).click()
      await page.getByRole('list', { name: 'Recipients' }).getByText('Olive Outsider').waitFor()
      await page.getByRole('button', { name: 'Send transmittal' }).click()
      await page.getByText(/-TRN-\d{4} sent to 1 recipient \(1 outside contact gets a link by mail\)\./).waitFor()
      const transmittal = ((await page.getByRole('heading', { level: 1 }).textContent()) ?? '').trim()
      const transmittalUrl = page.url()
      await page.getByText('1 outside contact has not opened it yet').waitFor()
      await checkAccessibility(page)

      // The mail, through a real SMTP server, holds the link.
      const mail = await smtp.waitFor((m) => m.to.includes(email), 30_000)
      const link = mail.text.match(/https?:\/\/\S+\/shared\/transmittals\/\S+/)?.[0]
      if (!link) throw new Error(`no link in: ${mail.text}`)

      // Olive: a browser with no session at all.
      const olive = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
      onTestFinished(() => olive.close())
      await olive.page.goto(new URL(link).pathname)
      await expectScreen(olive.page, `Transmittal ${transmittal}`)
      await olive.page.getByText(subject).waitFor()
      const fileLink = olive.page.getByRole('link', { name: `Download ${number} C01` })
      const file = await olive.context.request.get(new URL((await fileLink.getAttribute('href')) ?? '', portal.baseUrl).toString())
      expect(file.status()).toBe(200)
      expect((await file.body()).subarray(1, 4).toString('latin1')).toBe('PNG')

      await olive.page.getByRole('button', { name: 'Prepare ZIP' }).click()
      const zipLink = olive.page.getByRole('link', { name: 'Download ZIP' })
      // The job runs in the background (every 10 s at the latest): the page is loaded again until the ZIP is ready.
      await olive.page.getByText('The ZIP is being prepared', { exact: false }).first().waitFor()
      for (let attempt = 0; attempt < 120 && (await zipLink.count()) === 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 1000))
        await olive.page.goto(olive.page.url())
      }
      await zipLink.waitFor()
      const zip = await olive.context.request.get(new URL((await zipLink.getAttribute('href')) ?? '', portal.baseUrl).toString())
      expect(zip.status()).toBe(200)
      expect((await zip.body()).subarray(0, 2).toString('latin1')).toBe('PK')

      await olive.page.getByRole('button', { name: 'Acknowledge receipt' }).click()
      await olive.page.getByText(`You acknowledged receipt of ${transmittal}`, { exact: false }).waitFor()
      await checkAccessibility(olive.page)
      olive.assertNoConsoleErrors()

      // Alex sees the receipt, the views and downloads.
      await page.goto(transmittalUrl)
      await expectScreen(page, transmittal)
      await page.getByRole('list', { name: 'Receipts of outside contacts' }).getByText(/Acknowledged by Olive Outsider \(Outside Partners\) at /).waitFor()
      expect(await page.getByText('has not opened it yet', { exact: false }).count()).toBe(0)

      // Further work: P02 supersedes C01, the revision Olive received.
      await page.goto(`/documents/${documentId}`)
      await expectScreen(page, number)
      const newRevision = page.getByRole('region', { name: 'New revision' })
      await newRevision.getByLabel('Revision', { exact: true }).fill('P02')
      await newRevision.getByLabel('Suitability status').selectOption('S3')
      await newRevision.getByLabel('File', { exact: true }).setInputFiles({ name: 'quay-1-p02.png', mimeType: 'image/png', buffer: pngImage(16, 12, 4) })
      await newRevision.getByRole('button', { name: 'Upload revision' }).click()
      await page.getByText(`Revision P02 of ${number} uploaded.`).waitFor()
      alex.assertNoConsoleErrors()

      // Olive gets the notice, through SMTP, with her link: it opens her page, which says what replaced what she has.
      const notice = await smtp.waitFor((m) => m.to.includes(email) && m.subject === `Superseded: ${number} C01 is replaced by P02`, 30_000)
      expect(notice.text).toContain(`transmittal ${transmittal}`)
      const noticeLink = notice.text.match(/https?:\/\/\S+\/shared\/transmittals\/\S+/)?.[0]
      if (!noticeLink) throw new Error(`no link in: ${notice.text}`)
      expect(new URL(noticeLink).pathname).toBe(new URL(link).pathname)
      await olive.page.goto(new URL(noticeLink).pathname)
      await expectScreen(olive.page, `Transmittal ${transmittal}`)
      await olive.page.getByRole('list', { name: 'Superseded revisions' }).getByText(`${number} C01 is superseded by P02 (S3)`, { exact: false }).waitFor()
      await olive.page.getByText('The new revision is not part of it: it reaches you by a new transmittal.', { exact: false }).waitFor()
      // What was sent stays hers to download.
      await olive.page.getByRole('link', { name: `Download ${number} C01` }).waitFor()
      await checkAccessibility(olive.page)
      olive.assertNoConsoleErrors()

      // Alex's transmittal page says she was told.
      await page.goto(transmittalUrl)
      await expectScreen(page, transmittal)
      await page.getByRole('list', { name: 'Superseded notices to outside contacts' }).getByText(`Olive Outsider was told ${number} C01 is superseded`, { exact: false }).waitFor()
      alex.assertNoConsoleErrors()
    },
    JOURNEY_LIMIT_MS,
  )
})
