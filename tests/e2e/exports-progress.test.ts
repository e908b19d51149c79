import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { Project, Report } from '~/lib/reporting/types'
import { bound, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { demoUserApi, expectScreen, openMainDestination, signIn, VARIANTS } from './steps'

/**
 * Issue 34's check "the progress bar of a large export moves and ends in a download", as a person
 * sees it: a report of 101 items is prepared as a job, written 50 items at a time (docs/exports.md),
 * and its progress page shows the bar part of the way before it shows it full and offers the file:
 * live through the hub with JavaScript, by refreshing itself every 2 s without.
 *
 * The portal pauses 2.5 s after each batch (EXPORT_JOB_PAUSE_MS, the setting that keeps a long
 * export from taking the instance's CPU from the people using it), so each part-way state lasts
 * long enough to be seen on a busy machine: the bar is read as the person would, not timed.
 * The other job journeys (tests/e2e/exports.test.ts) cover the four variants; this one takes the
 * phone with JavaScript and the desktop without, one per way of following.
 */

const run = promisify(execFile)

let portal: Portal
let browser: Browser

const ITEMS = 101
const PAUSE_MS = 2_500

beforeAll(async () => {
  portal = await startPortal({ env: { EXPORT_JOB_ITEMS: '3', EXPORT_JOB_PAUSE_MS: String(PAUSE_MS) } })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

/** A report of the demo user's with `count` items, made through the running portal's API (ten at a time). */
async function reportOf(count: number, title: string, itemTitle: (n: number) => string): Promise<Report> {
  const { call } = await demoUserApi(portal.baseUrl)
  const project = await call<Project>('POST', '/api/projects', { title: `Progress Yard ${randomBytes(3).toString('hex')}` })
  const report = await call<Report>('POST', '/api/reports', { projectId: project.id, title })
  for (let first = 1; first <= count; first += 10) {
    const numbers = Array.from({ length: Math.min(10, count - first + 1) }, (_, i) => first + i)
    await Promise.all(numbers.map((n) => call('POST', `/api/reports/${report.id}/items`, { title: itemTitle(n) })))
  }
  return report
}

describe.each([VARIANTS[2], VARIANTS[1]])('$name', ({ javaScript, viewport }) => {
  test('a report of 101 items is prepared as a job: its progress bar shows it part of the way, then full, and the download holds every item', { timeout: bound(120_000) }, async () => {
    const suffix = randomBytes(2).toString('hex')
    const reportTitle = `Long walk ${suffix}`
    const itemTitle = (n: number) => `Bay ${n} ${suffix}`
    await reportOf(ITEMS, reportTitle, itemTitle)
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Dashboard')
    await openMainDestination(page, 'Reports')
    await expectScreen(page, 'Reports')
    await page.getByRole('link', { name: reportTitle }).filter({ visible: true }).first().click()
    await expectScreen(page, reportTitle)
    const form = page.getByRole('form', { name: 'Report PDF' })
    await form.getByText(`${ITEMS} items: prepared in the background`).waitFor()
    await form.getByRole('button', { name: 'Report PDF' }).click()
    await page.waitForURL(/\/exports\/[0-9a-f-]{36}\?follow=1$/)
    await expectScreen(page, `Report PDF: ${reportTitle}`)

    // What the bar says, read again and again until the download is offered (a minute at most).
    const bar = page.getByRole('progressbar', { name: 'Export prepared' })
    const download = page.getByRole('link', { name: 'Download PDF' })
    const seen: number[] = []
    const until = Date.now() + 60_000
    while (!(await download.isVisible()) && Date.now() < until) {
      const value = await bar.getAttribute('value', { timeout: 10_000 }).catch(() => null)
      if (value !== null && seen.at(-1) !== Number(value)) seen.push(Number(value))
      await page.waitForTimeout(100)
    }
    await download.waitFor({ timeout: 1_000 })
    expect(await bar.getAttribute('value')).toBe('100')
    // Part of the way (after 50 of the 101 items, or 100), then full: never backwards.
    expect(seen.some((value) => value > 0 && value < 100), `the bar showed ${seen.join(', ')}`).toBe(true)
    expect(seen).toEqual([...seen].sort((a, b) => a - b))

    const [file] = await Promise.all([page.waitForEvent('download'), download.click()])
    const { stdout: text } = await run('pdftotext', ['-enc', 'UTF-8', (await file.path()) as string, '-'])
    for (const n of [1, 50, 51, 100, ITEMS]) expect(text).toContain(itemTitle(n))
    j.assertNoConsoleErrors()
  })
})
