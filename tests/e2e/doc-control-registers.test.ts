import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { enterAdminCode, expectScreen, LONG_JOURNEY_VARIANTS, newDemoProject, signIn } from './steps'

/**
 * Document control's registers (docs/doc-control.md "Screens"): parties and their people, the
 * responsibility matrix, the deliverables register with its CSV import and export, and the
 * dashboard with its server-drawn chart; JavaScript on and off, desktop and phone.
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

/** A calendar date `months` from this month's first day (the register flags against today, so plans are relative to it). */
function monthsFromNow(months: number): string {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 1)).toISOString().slice(0, 10)
}

async function openTab(page: Page, name: string, heading: string) {
  const nav = page.getByRole('navigation', { name: 'Document control' })
  // On a phone the Documents sub-navigation is a menu: open it first.
  const menu = nav.locator('summary')
  if (await menu.isVisible()) await menu.click()
  await nav.getByRole('link', { name, exact: true }).click()
  await expectScreen(page, heading)
}

describe.each(LONG_JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('a manager adds a party with a person, sets a matrix cell, plans a deliverable and sees it flagged, imports and exports CSV, and reads the dashboard', async () => {
    const code = `R${hex(2).toUpperCase()}`
    const project = await newDemoProject(portal.baseUrl, { title: `Registers ${hex(3)}`, code })
    const partyName = `Alpha Architects ${hex(2)}`
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/doc-control/parties')
    await signIn(page, DEMO.admin.email, DEMO.admin.password, { admin: true })
    await enterAdminCode(page)
    await expectScreen(page, 'Parties')
    await page.getByRole('heading', { name: 'Choose a project' }).waitFor()
    const picker = page.getByRole('form', { name: 'Choose a project' })
    await picker.getByLabel('Project').selectOption({ label: project.title ?? '' })
    await picker.getByRole('button', { name: 'Open project' }).click()
    await page.getByRole('heading', { name: 'No parties yet' }).waitFor()
    await checkAccessibility(page)

    // A party: a wrong code is refused beside its field and what was typed stays; then it is added.
    const add = page.getByRole('region', { name: 'Add a party' })
    await add.getByLabel('Name', { exact: true }).fill(partyName)
    await add.getByLabel('Originator code (optional)').fill('A-1')
    await add.getByLabel('Role on the project').selectOption({ label: 'Lead appointed party' })
    await add.getByRole('button', { name: 'Add party' }).click()
    await add.getByText('An originator code is 3 to 6 letters or digits, e.g. ARC.').waitFor()
    expect(await add.getByLabel('Name', { exact: true }).inputValue()).toBe(partyName)
    await add.getByLabel('Originator code (optional)').fill('alp')
    await add.getByRole('button', { name: 'Add party' }).click()
    await page.getByText(`Party “${partyName}” added.`).waitFor()
    const party = page.getByRole('region', { name: partyName })
    await party.getByText('Lead appointed party').waitFor()
    await party.getByText('Code ALP').waitFor()

    // A person who leads it.
    const person = party.getByRole('form', { name: `Add a person to ${partyName}` })
    await person.getByLabel('Person').selectOption({ label: DEMO.user.displayName })
    await person.getByLabel('Leads the party').check()
    await person.getByRole('button', { name: 'Add person' }).click()
    await page.getByText(`${DEMO.user.displayName} is in ${partyName} and leads it.`).waitFor()
    const people = page.getByRole('region', { name: partyName }).getByRole('list', { name: `People of ${partyName}` })
    await people.getByText(DEMO.user.displayName).waitFor()
    await people.getByText('Lead', { exact: true }).waitFor()
    await checkAccessibility(page)

    // A second party, removed after confirming.
    await add.getByLabel('Name', { exact: true }).fill('Temporary consultants')
    await add.getByRole('button', { name: 'Add party' }).click()
    await page.getByText('Party “Temporary consultants” added.').waitFor()
    const temporary = page.getByRole('region', { name: 'Temporary consultants' })
    await temporary.getByText('Remove…').click()
    await temporary.getByText('Remove “Temporary consultants” from the project?').waitFor()
    await temporary.getByRole('button', { name: 'Yes, remove party' }).click()
    await page.getByText('Party removed.').waitFor()
    expect(await page.getByRole('region', { name: 'Temporary consultants' }).count()).toBe(0)

    // The matrix: architecture produced by the new party.
    await openTab(page, 'Matrix', 'Responsibility matrix')
    const produces = page.getByRole('checkbox', { name: new RegExp(`^A .*: ${partyName} produces$`) })
    expect(await produces.isChecked()).toBe(false)
    await produces.check()
    await page.getByRole('button', { name: 'Save matrix' }).click()
    await page.getByText('Responsibility matrix saved.').waitFor()
    expect(await page.getByRole('checkbox', { name: new RegExp(`^A .*: ${partyName} produces$`) }).isChecked()).toBe(true)
    expect(await page.getByRole('checkbox', { name: new RegExp(`^A .*: ${partyName} reviews$`) }).isChecked()).toBe(false)
    await checkAccessibility(page)

    // A deliverable due last month with no document of its number: flagged missing.
    await openTab(page, 'Deliverables', 'Deliverables')
    await page.getByRole('heading', { name: 'No deliverables yet' }).waitFor()
    const plan = page.getByRole('region', { name: 'Add a deliverable' })
    const missingNumber = `${code}-ARC-ZZ-00-DR-A-0001`
    await plan.getByLabel('Number').fill(missingNumber)
    await plan.getByLabel('Title').fill('Ground floor plan')
    await plan.getByLabel('Responsible party').selectOption({ label: `${partyName} (ALP)` })
    await plan.getByLabel('Milestone 1').fill('Stage 4')
    await plan.getByLabel('Planned date 1').fill(monthsFromNow(-1))
    await plan.getByRole('button', { name: 'Add deliverable' }).click()
    await page.getByText(`Deliverable ${missingNumber} added.`).waitFor()
    const register = page.getByRole('region', { name: 'Deliverables', exact: true })
    const row = register.getByRole('row', { name: new RegExp(missingNumber) })
    await row.getByText('Missing', { exact: true }).waitFor()
    await row.getByText('Not yet').waitFor()
    await checkAccessibility(page)

    // CSV import: one good line, one without a number (named, not imported).
    const importedNumber = `${code}-ARC-ZZ-01-DR-A-0002`
    const csv = ['Number,Title,Responsible party,Milestone: Stage 4', `${importedNumber},First floor plan,ALP,${monthsFromNow(2)}`, ',No number,,'].join('\n')
    const importForm = page.getByRole('form', { name: 'Import deliverables' })
    await importForm.getByLabel('CSV file').setInputFiles({ name: 'deliverables.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
    await importForm.getByRole('button', { name: 'Import CSV' }).click()
    await page.getByText('Imported 1 new and 0 updated; 1 line not imported').waitFor()
    await page.getByRole('list', { name: 'Lines not imported' }).getByText('Line 3: The number is empty.').waitFor()
    await register
      .getByRole('row', { name: new RegExp(importedNumber) })
      .getByText('On track', { exact: true })
      .waitFor()
    await checkAccessibility(page)

    // The flag filter keeps to the missing one.
    await page.getByRole('navigation', { name: 'Flags' }).getByRole('link', { name: 'Missing (1)' }).click()
    await page
      .getByRole('region', { name: 'Deliverables: missing' })
      .getByRole('row', { name: new RegExp(missingNumber) })
      .waitFor()
    expect(await page.getByRole('row', { name: new RegExp(importedNumber) }).count()).toBe(0)

    // CSV export: a file with both deliverables, their plan and flag.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()])
    expect(download.suggestedFilename()).toBe(`${code}-deliverables.csv`)
    const exported = await readFile((await download.path()) as string, 'utf8')
    const lines = exported.trimEnd().split('\r\n')
    expect(lines[0]).toBe('Number,Title,Responsible party,Milestone: Stage 4,Due,Document,First issued,Flag')
    expect(lines).toContain(`${missingNumber},Ground floor plan,ALP,${monthsFromNow(-1)},${monthsFromNow(-1)},,,missing`)
    expect(lines).toContain(`${importedNumber},First floor plan,ALP,${monthsFromNow(2)},${monthsFromNow(2)},,,on-track`)

    // The dashboard: its figures, and issued vs planned drawn as SVG with its table.
    await openTab(page, 'Project dashboard', 'Document control')
    const figures = page.locator('dl')
    await figures.getByText('Reviews under way').waitFor()
    await figures.getByText('Transmittals awaiting acknowledgement').waitFor()
    const chart = page.getByRole('img', { name: /^Issued vs planned deliverables/ })
    await chart.waitFor()
    expect(await chart.evaluate((node) => node.tagName.toLowerCase())).toBe('svg')
    expect(await chart.locator('polyline').count()).toBe(2)
    const table = page.getByRole('table', { name: 'Issued vs planned by month (cumulative)' })
    const rows = table.getByRole('row')
    expect(await rows.count()).toBe(4 + 1)
    expect((await rows.last().getByRole('cell').allTextContents()).map((text) => text.trim())).toEqual(['2', '0'])
    await checkAccessibility(page)
    j.assertNoConsoleErrors()
  })

  test('a member without manage reads the seeded Riverside parties, matrix and register but is offered no forms', async () => {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await page.goto('/doc-control/parties')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Parties')
    const picker = page.getByRole('form', { name: 'Choose a project' })
    await picker.getByLabel('Project').selectOption({ label: 'Riverside Apartments – Block A' })
    await picker.getByRole('button', { name: 'Open project' }).click()
    const architects = page.getByRole('region', { name: 'Riverside Architects' })
    await architects.getByRole('list', { name: 'People of Riverside Architects' }).getByText(DEMO.user.displayName).waitFor()
    await page.getByRole('region', { name: 'Beam Structures' }).getByText('Works for Riverside Architects').waitFor()
    expect(await page.getByRole('region', { name: 'Add a party' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Add person' }).count()).toBe(0)
    await checkAccessibility(page)

    await openTab(page, 'Matrix', 'Responsibility matrix')
    await page.getByRole('table', { name: /Who produces and who reviews/ }).waitFor()
    expect(await page.getByRole('checkbox').count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Save matrix' }).count()).toBe(0)

    await openTab(page, 'Deliverables', 'Deliverables')
    const flags = page.getByRole('navigation', { name: 'Flags' })
    await flags.getByRole('link', { name: 'Late (1)' }).waitFor()
    await flags.getByRole('link', { name: 'Missing (1)' }).waitFor()
    await page
      .getByRole('row', { name: /RSAA-STR-ZZ-XX-DR-S-0100/ })
      .getByText('Issued', { exact: true })
      .waitFor()
    expect(await page.getByRole('region', { name: 'Add a deliverable' }).count()).toBe(0)
    expect(await page.getByRole('form', { name: 'Import deliverables' }).count()).toBe(0)
    await checkAccessibility(page)
    j.assertNoConsoleErrors()
  })
})
