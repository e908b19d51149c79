import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Locator, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { DocumentDetail } from '~/lib/documents/types'
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

const hex = (bytes: number) => randomBytes(bytes).toString('hex')

/** A project of its own with one drawing at P01 (work in progress), made by the demo user. */
async function documentAtP01() {
  const { call } = await demoUserApi(portal.baseUrl)
  const form = new FormData()
  form.append('code', 'P01')
  form.append('status', 'S0')
  form.append('file', new File([new Uint8Array(pngImage(16, 12, 11))], 'level-1.png', { type: 'image/png' }))
  const api = { call, upload: (documentId: string) => call('POST', `/api/documents/${documentId}/revisions`, form) }
  const code = `W${hex(2).toUpperCase()}`
  const project = await api.call<Project>('POST', '/api/projects', { title: `Harbour ${hex(3)}`, code })
  const number = `${code}-ARC-ZZ-01-DR-A-0101`
  const doc = await api.call<DocumentDetail>('POST', `/api/projects/${project.id}/documents`, { number, title: 'Level 1 general arrangement' })
  await api.upload(doc.id)
  return { project, doc, number }
}

/** The texts of the errors a field's aria-describedby points at. */
async function errorsOf(field: Locator, page: Page): Promise<string> {
  const describedBy = (await field.getAttribute('aria-describedby')) ?? ''
  const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'))
  if (!errorId) return ''
  return ((await page.locator(`[id="${errorId}"]`).textContent()) ?? '').replace(/Error: /g, '')
}

async function signInAdmin(page: Page): Promise<void> {
  await signIn(page, DEMO.admin.email, DEMO.admin.password, { admin: true })
  await enterAdminCode(page)
}

describe.each(LONG_JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('a two-step template is defined; a review of P01 is rejected with a reason, resubmitted with P02, approved at both steps from the inbox and the review, and the document is Published', { timeout: bound(120_000) }, async () => {
    const { project, doc, number } = await documentAtP01()
    const admin = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => admin.close())
    const reviewer = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => reviewer.close())
    const a = admin.page
    const r = reviewer.page

    // ---- The administrator defines a two-step template ----
    await a.goto('/admin/workflow-templates')
    await signInAdmin(a)
    await expectScreen(a, 'Workflow templates')
    await a.getByRole('link', { name: 'New template' }).click()
    const form = a.getByRole('form', { name: 'New template' })
    await form.waitFor()
    const templateName = `Two-step review ${hex(3)}`
    await form.getByLabel('Template name').fill(templateName)
    const step1 = form.getByRole('group', { name: 'Step 1', exact: true })
    await step1.getByLabel('Step name').fill('Design check')
    await step1.getByRole('group', { name: 'People' }).getByLabel(DEMO.user.displayName).check()
    await checkAccessibility(a)

    // "Add step" keeps what was typed (without JavaScript the server draws the form again).
    await form.getByRole('button', { name: 'Add step' }).click()
    const step2 = form.getByRole('group', { name: 'Step 2', exact: true })
    await step2.waitFor()
    expect(await step1.getByLabel('Step name').inputValue()).toBe('Design check')
    expect(await step1.getByRole('group', { name: 'People' }).getByLabel(DEMO.user.displayName).isChecked()).toBe(true)
    expect(await form.getByLabel('Template name').inputValue()).toBe(templateName)

    // A second step with the first one's name and nobody to review: both refused beside their fields, the input kept.
    await step2.getByLabel('Step name').fill('design check')
    await form.getByRole('button', { name: 'Create template' }).click()
    await expect.poll(() => errorsOf(step2.getByLabel('Step name'), a)).toContain('Another step is called')
    await step2.getByText('Name who reviews at this step.').waitFor()
    expect(await form.getByLabel('Template name').inputValue()).toBe(templateName)
    expect(await step1.getByRole('group', { name: 'People' }).getByLabel(DEMO.user.displayName).isChecked()).toBe(true)
    await checkAccessibility(a)

    await step2.getByLabel('Step name').fill('Approval')
    await step2.getByRole('group', { name: 'People' }).getByLabel(DEMO.admin.displayName).check()
    await form.getByRole('button', { name: 'Create template' }).click()
    await a.getByText(`Template “${templateName}” created.`).waitFor()
    const row = a.getByRole('row').filter({ hasText: templateName })
    await row.getByRole('listitem').first().waitFor()
    expect(await row.getByRole('listitem').allTextContents()).toEqual(['Design check (serial, 5 working days)', 'Approval (serial, 5 working days)'])
    expect(await row.getByRole('cell').nth(0).textContent()).toBe('1')
    await row.getByRole('link', { name: `Edit ${templateName}` }).click()
    await a.getByText('This is version 1. Saving makes version 2; running reviews keep their version.').waitFor()
    expect(
      await a
        .getByRole('form', { name: `Edit ${templateName}` })
        .getByRole('group', { name: 'Step 2', exact: true })
        .getByLabel('Step name')
        .inputValue(),
    ).toBe('Approval')

    // ---- The administrator starts a review of P01 from the document's page ----
    await a.goto(`/documents/${doc.id}`)
    await expectScreen(a, number)
    const reviews = a.getByRole('region', { name: 'Reviews' })
    await reviews.getByRole('heading', { name: 'No reviews yet' }).waitFor()
    const choose = reviews.getByRole('form', { name: 'Choose a workflow template' })
    await choose.getByLabel('Workflow template').selectOption({ label: `${templateName} (version 1)` })
    await choose.getByRole('button', { name: 'Propose reviewers' }).click()
    const start = reviews.getByRole('form', { name: 'Start review' })
    await start.waitFor()
    // The template names who reviews: proposed, ticked.
    expect(await start.getByRole('group', { name: 'Step 1: Design check' }).getByLabel(DEMO.user.displayName).isChecked()).toBe(true)
    expect(await start.getByRole('group', { name: 'Step 2: Approval' }).getByLabel(DEMO.admin.displayName).isChecked()).toBe(true)
    expect(await start.getByRole('group', { name: 'Step 2: Approval' }).getByLabel(DEMO.user.displayName).isChecked()).toBe(false)
    expect(await start.getByLabel('Revision').locator('option:checked').textContent()).toContain('P01 (current')
    await start.getByLabel('Message (optional)').fill('Please check the stair core before the coordination meeting.')
    await checkAccessibility(a)
    await start.getByRole('button', { name: 'Start review' }).click()
    await expectScreen(a, `Review of ${number} P01`)
    await a.getByText(`Review of ${number} P01 started.`, { exact: false }).waitFor()
    const reviewUrl = a.url()
    expect(new URL(reviewUrl).searchParams.get('projectId')).toBe(project.id)
    await a.getByText('In review', { exact: true }).first().waitFor()
    await a.getByRole('listitem', { name: 'Step 1: Design check' }).getByText('Under review').waitFor()

    // ---- The first step's reviewer finds it in the inbox and sends it back, with a reason ----
    await r.goto('/doc-control/inbox')
    await signIn(r, DEMO.user.email, DEMO.user.password)
    await expectScreen(r, 'Inbox')
    const task = r.getByRole('listitem', { name: `Review of ${number} P01` })
    await task.getByText('Design check').waitFor()
    await checkAccessibility(r)
    await task.getByRole('link', { name: `Review of ${number} P01` }).click()
    await expectScreen(r, `Review of ${number} P01`)
    const reject = r.getByRole('form', { name: 'Reject' })
    await reject.getByLabel('Outcome').selectOption({ label: 'Rejected (sets S3)' })
    // Spaces are no reason: refused beside the field, the outcome chosen kept.
    await reject.getByLabel('Reason').fill('   ')
    await reject.getByRole('button', { name: 'Reject' }).click()
    await expect.poll(() => errorsOf(r.getByRole('form', { name: 'Reject' }).getByLabel('Reason'), r)).toContain('Give the reason for sending it back.')
    expect(await r.getByRole('form', { name: 'Reject' }).getByLabel('Outcome').inputValue()).toBe('rejected')
    await checkAccessibility(r)
    await r.getByRole('form', { name: 'Reject' }).getByLabel('Reason').fill('The stair core clashes with the riser on grid C.')
    await r.getByRole('form', { name: 'Reject' }).getByRole('button', { name: 'Reject' }).click()
    await r.getByText('Sent back to the author for a new revision.').waitFor()
    await r.getByText('Returned to the author', { exact: true }).first().waitFor()
    const history = r.getByRole('list', { name: 'History, oldest first' })
    await history.getByText('“The stair core clashes with the riser on grid C.”').waitFor()
    await history.getByText(`${DEMO.user.displayName} sent it back at step 1 (Design check): Rejected`).waitFor()

    // ---- The author uploads P02 on the document's page and resubmits with it ----
    await a.goto(`/documents/${doc.id}`)
    await expectScreen(a, number)
    const newRevision = a.getByRole('region', { name: 'New revision' })
    expect(await newRevision.getByLabel('Revision', { exact: true }).inputValue()).toBe('P02')
    await newRevision.getByLabel('File', { exact: true }).setInputFiles({ name: 'level-1-p02.png', mimeType: 'image/png', buffer: pngImage(16, 12, 12) })
    await newRevision.getByRole('button', { name: 'Upload revision' }).click()
    await a.getByText(`Revision P02 of ${number} uploaded.`).waitFor()
    await a.getByRole('region', { name: 'Reviews' }).getByText('Returned to the author', { exact: true }).waitFor()
    await a.goto(reviewUrl)
    const resubmit = a.getByRole('form', { name: 'Resubmit' })
    expect(await resubmit.getByLabel(`New revision of ${number}`).locator('option:checked').textContent()).toBe('P02')
    await checkAccessibility(a)
    await resubmit.getByRole('button', { name: 'Resubmit' }).click()
    await expectScreen(a, `Review of ${number} P02`)
    await a.getByText('Resubmitted: round 2 starts at step 1.').waitFor()

    // ---- The first step's reviewer approves from the inbox ----
    await r.goto('/doc-control/inbox?kind=tasks')
    await expectScreen(r, 'Inbox')
    const task2 = r.getByRole('listitem', { name: `Review of ${number} P02` })
    await task2.getByText('Approve…').click()
    const approveHere = task2.getByRole('form', { name: `Approve ${number} P02` })
    expect(await approveHere.getByLabel('Outcome').locator('option:checked').textContent()).toBe('Approved (sets A1)')
    await approveHere.getByLabel('Comment (optional)').fill('Riser moved: fine now.')
    await checkAccessibility(r)
    await approveHere.getByRole('button', { name: 'Approve' }).click()
    await r.getByText('Approved. Step 2 (Approval) is under review.').waitFor()
    await expectScreen(r, 'Inbox')
    expect(await r.getByRole('listitem', { name: `Review of ${number} P02` }).count()).toBe(0)

    // ---- The second step's reviewer approves on the review's page: the document is Published ----
    await a.goto(reviewUrl)
    await a.getByRole('listitem', { name: 'Step 2: Approval' }).getByText('Under review').waitFor()
    const stale = await admin.context.newPage()
    await stale.goto(reviewUrl)
    await stale.getByRole('form', { name: 'Approve' }).waitFor()
    // With script, the other tab listens for changes once its realtime connection is up.
    if (javaScript) await stale.locator('[data-realtime-status="connected"]').waitFor({ state: 'attached' })
    await a.getByRole('form', { name: 'Approve' }).getByRole('button', { name: 'Approve' }).click()
    await a.getByText('Review approved: Approved.', { exact: false }).waitFor()
    await a.getByText('Approved', { exact: true }).first().waitFor()
    expect(await a.getByRole('form', { name: 'Approve' }).count()).toBe(0)
    if (javaScript) {
      // The other tab hears of it and shows the review as it is now.
      await stale.getByRole('region', { name: 'Your part' }).waitFor()
      expect(await stale.getByRole('form', { name: 'Approve' }).count()).toBe(0)
    } else {
      // A page drawn before the approval still offers it: the answer is a notice saying what is possible now.
      await stale.getByRole('form', { name: 'Approve' }).getByRole('button', { name: 'Approve' }).click()
      await stale.getByText('Not possible now').waitFor()
      await stale.getByText('This review is approved: it cannot take “approve” now.', { exact: false }).waitFor()
    }
    await stale.close()

    await a.goto(`/documents/${doc.id}`)
    await expectScreen(a, number)
    await a.getByText('Published', { exact: true }).first().waitFor()
    await a.getByText('Authorised and accepted (stage 1)').first().waitFor()
    // The rule book: approval for A1 issued C01 from P02 (never P02/A1).
    await a.getByText('C01, issued', { exact: false }).waitFor()
    await a.getByRole('region', { name: 'Reviews' }).getByText('Approved', { exact: true }).waitFor()

    // The project's reviews list it as approved, at the C01 it issued.
    await a.goto(`/doc-control/workflows?projectId=${project.id}`)
    await expectScreen(a, 'Reviews')
    const listed = a.getByRole('row').filter({ hasText: `${number} C01` })
    await listed.getByText('Approved', { exact: true }).waitFor()
    await checkAccessibility(a)
    admin.assertNoConsoleErrors()
    reviewer.assertNoConsoleErrors()
  })
})
