import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { parseCsv } from '#server/domain/doc-control/deliverables-csv'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Administration › Audit (docs/admin/audit.md): an administrator opens the log, filters it by an
 * action, downloads the filtered CSV and finds those entries in it, and verifies the hash chain;
 * JavaScript on and off.
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

describe.each([VARIANTS[0], VARIANTS[1]])('$name', ({ javaScript, viewport }) => {
  test('an admin filters the audit log, exports it as CSV, and verifies the chain', async () => {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/admin/audit')
    await signInDemoAdmin(page)
    await expectScreen(page, 'Audit')
    // The sign-in just made is the newest entry.
    const log = page.getByRole('table', { name: 'Audit log, newest first' })
    await log.getByText(`${DEMO.admin.displayName} signed in`, { exact: true }).first().waitFor()

    // Filter by one action: only its entries are listed, and the filter is in the address.
    const filters = page.getByRole('form', { name: 'Filter the audit log' })
    await filters.getByLabel('Action').selectOption('auth.mfa.verified')
    await filters.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL(/action=auth\.mfa\.verified/)
    await expectScreen(page, 'Audit')
    await log.getByText(`${DEMO.admin.displayName} entered their authentication code`).first().waitFor()
    // With script the address changes a moment before the list does.
    await expect.poll(() => log.getByText(`${DEMO.admin.displayName} signed in`, { exact: true }).count()).toBe(0)
    await log.getByText(DEMO.admin.email).first().waitFor()
    expect(await filters.getByLabel('Action').inputValue()).toBe('auth.mfa.verified')

    // The export of what is filtered: a CSV with those entries, each with the admin as actor.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()])
    expect(download.suggestedFilename()).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.csv$/)
    const rows = parseCsv((await readFile((await download.path()) as string, 'utf8')).replace(/^\uFEFF/, '')).rows.map((row) => row.cells)
    // Columns by name: the export carries the screen's sentence (summary) and the target's name too.
    const header = rows[0] ?? []
    expect(header).toEqual(expect.arrayContaining(['chainSeq', 'createdAtUtc', 'summary', 'action', 'actorEmail', 'targetName']))
    const column = (name: string) => header.indexOf(name)
    const entries = rows.slice(1)
    expect(entries.length).toBeGreaterThan(0)
    expect(new Set(entries.map((row) => row[column('action')]))).toEqual(new Set(['auth.mfa.verified']))
    expect(entries.map((row) => row[column('actorEmail')])).toContain(DEMO.admin.email)
    expect(entries.every((row) => (row[column('summary')] ?? '').length > 0)).toBe(true)

    // A member's role changes: the log names who did it and to whom, the ids behind the entry's Details.
    await page.goto('/admin/users')
    await page.getByRole('main').getByRole('link', { name: DEMO.user.displayName, exact: true }).first().click()
    await expectScreen(page, DEMO.user.displayName)
    const role = page.getByLabel('Role in this organisation')
    const before = await role.inputValue()
    const [first, back] = before === 'read-only' ? (['read-write', 'read-only'] as const) : (['read-only', before] as const)
    for (const next of [first, back]) {
      await role.selectOption(next)
      await page.getByRole('button', { name: 'Change role' }).click()
      await page.getByText(`${DEMO.user.displayName}’s role changed.`).first().waitFor()
      await expect.poll(() => role.inputValue()).toBe(next)
    }
    await page.goto('/admin/audit?action=admin.member.role.changed')
    await expectScreen(page, 'Audit')
    const label = (key: string) => ({ admin: 'Administrator', 'read-write': 'Read & Write', 'read-only': 'Read Only' })[key]
    const sentence = `${DEMO.admin.displayName} changed ${DEMO.user.displayName}’s role to ${label(first)} (was ${label(before)})`
    const entry = log.getByRole('row').filter({ hasText: sentence }).first()
    await entry.getByText(sentence).waitFor()
    await entry.getByRole('link', { name: `More about ${DEMO.user.displayName}` }).waitFor()
    expect(await entry.getByText('admin.member.role.changed').isVisible()).toBe(false)
    await entry.getByText('Details', { exact: true }).click()
    await entry.getByText('admin.member.role.changed').waitFor()

    // The chain check: intact, and the export and the check are themselves in the log.
    await page.getByRole('button', { name: 'Verify chain' }).click()
    await page.getByText(/^Chain intact: [\d,.\s]+ entries checked$/).waitFor()
    await expectScreen(page, 'Audit')
    await page.goto('/admin/audit?action=admin.audit.')
    await log.getByText(/verified the audit log’s chain/).first().waitFor()
    await log.getByText(/exported the audit log/).first().waitFor()
  })
})
