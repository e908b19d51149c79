import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Locator, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { DocumentDetail } from '~/lib/documents/types'
import { pngImage } from '../helpers/photos'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { enterAdminCode, expectScreen, JOURNEY_VARIANTS, newDemoProject, signIn } from './steps'

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

/** A project of its own for each journey, with a code that is a valid Project field (2–6 letters or digits). */
async function newProject() {
  const code = `D${hex(2).toUpperCase()}`
  return newDemoProject(portal.baseUrl, { title: `Riverside ${hex(3)}`, code })
}

/** A drawing: a small real PNG, different each time. */
function drawing(name: string, seed: number) {
  return { name, mimeType: 'image/png', buffer: pngImage(16, 12, seed) }
}

/** The texts of the errors a field's aria-describedby points at. */
async function errorsOf(scope: Locator, page: Page, label: string): Promise<string[]> {
  const describedBy = (await scope.getByLabel(label, { exact: true }).getAttribute('aria-describedby')) ?? ''
  const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'))
  if (!errorId) return []
  const error = page.locator(`[id="${errorId}"]`)
  const items = await error.locator('li').allTextContents()
  return (items.length > 0 ? items : [(await error.textContent()) ?? '']).map((text) => text.replace(/^Error: /, ''))
}

describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('a site user files a drawing in a new folder, fixes its name, supersedes P01 with P02 and finds it by part of its number', async () => {
    const project = await newProject()
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    const uploadCalls: string[] = []
    page.on('request', (request) => {
      if (/\/api\/(uploads|documents\/[^/]+\/uploads)/.test(new URL(request.url()).pathname)) uploadCalls.push(`${request.method()} ${new URL(request.url()).pathname}`)
    })

    await page.goto('/documents')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Documents')
    await page.getByRole('heading', { name: 'Choose a project' }).waitFor()
    const picker = page.getByRole('form', { name: 'Choose a project' })
    await picker.getByLabel('Project').selectOption({ label: project.title ?? '' })
    await picker.getByRole('button', { name: 'Open project' }).click()
    await page.getByRole('heading', { level: 2, name: project.title ?? '' }).waitFor()
    await page.getByRole('heading', { name: 'No documents in this folder yet.' }).waitFor()
    await checkAccessibility(page)

    // A folder, from the project's top; the screen goes into it.
    const folderName = `Drawings ${hex(2)}`
    const newFolder = page.getByRole('region', { name: 'New folder' })
    await newFolder.getByLabel('Folder name').fill(folderName)
    await newFolder.getByRole('button', { name: 'Create folder' }).click()
    await page.getByText(`Folder “${folderName}” created.`).waitFor()
    await page.getByRole('heading', { level: 2, name: folderName }).waitFor()
    const breadcrumb = page.getByRole('navigation', { name: 'Breadcrumb' })
    await breadcrumb.getByRole('link', { name: project.title ?? '' }).waitFor()
    expect(await breadcrumb.getByText(folderName).getAttribute('aria-current')).toBe('page')

    // A name that breaks several rules of the naming standard: "Check name" lists every problem, and keeps what was typed.
    const upload = page.getByRole('region', { name: 'Upload document' })
    const badNumber = `${project.code}-XX-Q9-7-DR-A-12`
    await upload.getByLabel('Number', { exact: true }).fill(badNumber)
    await upload.getByLabel('Title', { exact: true }).fill('Ground floor plan')
    await upload.getByLabel('File', { exact: true }).setInputFiles(drawing('ground-floor.png', 1))
    await upload.getByRole('button', { name: 'Check name' }).click()
    await expect.poll(async () => (await errorsOf(upload, page, 'Number')).length).toBeGreaterThanOrEqual(3)
    const problems = await errorsOf(upload, page, 'Number')
    expect(problems.join(' ')).toContain('Originator')
    expect(problems.join(' ')).toContain('Level/Location')
    expect(problems.join(' ')).toContain('Number')
    expect(await upload.getByLabel('Number', { exact: true }).getAttribute('aria-invalid')).toBe('true')
    expect(await upload.getByLabel('Number', { exact: true }).inputValue()).toBe(badNumber)
    expect(await upload.getByLabel('Title', { exact: true }).inputValue()).toBe('Ground floor plan')
    await checkAccessibility(page)

    // Uploading with the bad name is refused the same way, and creates nothing.
    await upload.getByLabel('File', { exact: true }).setInputFiles(drawing('ground-floor.png', 1))
    await upload.getByRole('button', { name: 'Upload document' }).click()
    await expect.poll(async () => (await errorsOf(upload, page, 'Number')).join(' ')).toContain('Originator')
    expect(await upload.getByLabel('Title', { exact: true }).inputValue()).toBe('Ground floor plan')
    expect(await upload.getByLabel('Revision', { exact: true }).inputValue()).toBe('P01')

    // The right name passes the check, then the drawing goes up as P01.
    const number = `${project.code}-ARC-ZZ-00-DR-A-0012`
    await upload.getByLabel('Number', { exact: true }).fill(number)
    await upload.getByRole('button', { name: 'Check name' }).click()
    await upload.getByText(`${number} follows the naming standard and is not used yet.`).waitFor()
    expect(await upload.getByLabel('Suitability status').inputValue()).toBe('S0')
    await upload.getByLabel('Suitability status').selectOption('S2')
    await upload.getByLabel('File', { exact: true }).setInputFiles(drawing('ground-floor.png', 1))
    await upload.getByRole('button', { name: 'Upload document' }).click()
    await expectScreen(page, number)
    await page.getByText(`Document ${number} uploaded as P01.`).waitFor()
    const revisions = page.getByRole('list', { name: 'Revisions, newest first' })
    const p01 = revisions.getByRole('listitem', { name: 'Revision P01' })
    await p01.getByText('Current', { exact: true }).waitFor()
    await p01.getByRole('link', { name: 'Open P01: ground-floor.png' }).waitFor()
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: folderName }).waitFor()

    // P02 supersedes it: the code comes suggested.
    const newRevision = page.getByRole('region', { name: 'New revision' })
    expect(await newRevision.getByLabel('Revision', { exact: true }).inputValue()).toBe('P02')
    await newRevision.getByLabel('Comment (optional)').fill('Stair core moved 300 mm north.')
    await newRevision.getByLabel('File', { exact: true }).setInputFiles(drawing('ground-floor-p02.png', 2))
    await newRevision.getByRole('button', { name: 'Upload revision' }).click()
    await page.getByText(`Revision P02 of ${number} uploaded.`).waitFor()
    const p02 = revisions.getByRole('listitem', { name: 'Revision P02' })
    await p02.getByText('Current', { exact: true }).waitFor()
    await p02.getByText('Stair core moved 300 mm north.').waitFor()
    await p01.getByText('Superseded', { exact: true }).waitFor()
    await p01.getByText('by P02', { exact: true }).waitFor()
    expect(await p01.getByText('Current', { exact: true }).count()).toBe(0)
    await checkAccessibility(page)
    // With script the files went through the resumable upload; without, in the form's own post.
    if (javaScript) expect(uploadCalls.filter((call) => call.startsWith('PUT /api/uploads/')).length).toBeGreaterThanOrEqual(2)
    else expect(uploadCalls).toEqual([])

    // Back at the project's top, a piece of the number finds it.
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: project.title ?? '' }).click()
    await expectScreen(page, 'Documents')
    const search = page.getByRole('search', { name: 'Search documents' })
    await search.getByLabel('Search documents').fill('0012')
    await search.getByRole('button', { name: 'Search' }).click()
    await page.getByRole('heading', { level: 2, name: 'Search results' }).waitFor()
    await page.getByText('1 document matches.').waitFor()
    expect(new URL(page.url()).searchParams.get('q')).toBe('0012')
    await page.getByRole('link', { name: number }).waitFor()
    await checkAccessibility(page)
    await search.getByLabel('Search documents').fill('no-such-drawing-zz')
    await search.getByRole('button', { name: 'Search' }).click()
    await page.getByRole('heading', { name: 'No documents match.' }).waitFor()
    j.assertNoConsoleErrors()
  })
})

// Archiving and permissions take a manager: the demo administrator, whose sign-in takes an
// authentication code, each usable once.
describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('an administrator gives a role a level on a document, removes it, and archives the document after confirming', async () => {
    const project = await newProject()
    const number = `${project.code}-STR-Z1-01-DR-S-0042`
    const doc = await project.call<DocumentDetail>('POST', `/api/projects/${project.id}/documents`, { number, title: 'Level 1 slab' })
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await page.goto(`/documents/${doc.id}`)
    await signIn(page, DEMO.admin.email, DEMO.admin.password, { admin: true })
    await enterAdminCode(page)
    await expectScreen(page, number)
    await page.getByRole('heading', { name: 'No revisions yet' }).waitFor()

    const permissions = page.getByRole('form', { name: 'Permissions' })
    await permissions.getByLabel('Person or role').selectOption({ label: 'Everyone with Read Only' })
    await permissions.getByLabel('Level', { exact: true }).selectOption('none')
    await permissions.getByRole('button', { name: 'Save permissions' }).click()
    await page.getByText('Permissions saved.').waitFor()
    const entry = permissions.getByLabel('Everyone with Read Only', { exact: true })
    expect(await entry.inputValue()).toBe('none')
    await checkAccessibility(page)
    await permissions.getByRole('button', { name: 'Remove Everyone with Read Only' }).click()
    await page.getByText('Entry removed. Permissions saved.').waitFor()
    expect(await permissions.getByLabel('Everyone with Read Only', { exact: true }).count()).toBe(0)

    await page.getByText('Archive…').click()
    await page.getByText(`Archive ${number}?`).waitFor()
    await checkAccessibility(page)
    await page.getByRole('button', { name: 'Yes, archive document' }).click()
    await page.getByText(`${number} archived.`, { exact: false }).waitFor()
    await page.getByText('This document is archived').waitFor()
    expect(await page.getByRole('region', { name: 'New revision' }).count()).toBe(0)
    await page.getByText('Bring back…').click()
    await page.getByRole('button', { name: 'Yes, bring it back' }).click()
    await page.getByText(`${number} is back in use.`).waitFor()
    await page.getByRole('region', { name: 'New revision' }).waitFor()

    // The project's own permissions, at the top of its tree.
    await page.goto(`/documents?projectId=${project.id}`)
    await page.getByRole('heading', { name: 'Permissions of this project' }).waitFor()
    await page.getByText('Show and change permissions').click()
    const projectPermissions = page.getByRole('form', { name: 'Permissions' })
    await projectPermissions.getByLabel('Person or role').selectOption({ label: 'Everyone with Read Only' })
    await projectPermissions.getByLabel('Level', { exact: true }).selectOption('upload')
    await projectPermissions.getByRole('button', { name: 'Save permissions' }).click()
    await page.getByText('Permissions saved.').waitFor()
    // A page loaded afresh (without JavaScript) shows the permissions folded again.
    const folded = page.locator('details', { has: page.getByText('Show and change permissions') })
    if ((await folded.getAttribute('open')) === null) await page.getByText('Show and change permissions').click()
    expect(await page.getByRole('form', { name: 'Permissions' }).getByLabel('Everyone with Read Only', { exact: true }).inputValue()).toBe('upload')
    j.assertNoConsoleErrors()
  })
})

// What the upload island does when the server refuses a new document's file cannot be made to
// happen on demand (any type is a revision, and the limit is 1 GiB): the refusal is played by the
// test, at the call that starts the session.
describe('JS on', () => {
  test('a new document whose file is refused opens on its page, saying the file was not stored and why', async () => {
    const project = await newProject()
    const j = await newJourneyContext(browser, { javaScript: true, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await page.route('**/api/documents/*/uploads', (route) =>
      route.fulfill({
        status: 413,
        contentType: 'application/problem+json',
        body: JSON.stringify({ status: 413, title: 'Too large', detail: 'A revision may be at most 1 GiB.', code: 'KR_UPLOAD_TOO_LARGE' }),
      }),
    )
    await page.goto(`/documents?projectId=${project.id}`)
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Documents')
    const number = `${project.code}-MEP-ZZ-RF-SP-M-0007`
    const upload = page.getByRole('region', { name: 'Upload document' })
    await upload.getByLabel('Number', { exact: true }).fill(number)
    await upload.getByLabel('Title', { exact: true }).fill('Roof plant specification')
    await upload.getByLabel('File', { exact: true }).setInputFiles(drawing('roof-plant.png', 7))
    await upload.getByRole('button', { name: 'Upload document' }).click()
    await expectScreen(page, number)
    await page.getByText(`Document ${number} was created, but its file was not stored. roof-plant.png was not stored: A revision may be at most 1 GiB.`, { exact: false }).waitFor()
    await page.getByRole('heading', { name: 'No revisions yet' }).waitFor()
    await page.getByRole('region', { name: 'New revision' }).waitFor()
    j.assertNoConsoleErrors()
  })
})
