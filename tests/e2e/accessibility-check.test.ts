import { createServer, type Server } from 'node:http'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { checkAccessibility, launchBrowser, newJourneyContext } from './harness'

/**
 * The journeys' accessibility check itself (harness.ts checkAccessibility), on pages a small server
 * of this file serves: it must fail on a serious or critical violation and pass a page whose only
 * faults are moderate or minor (the rules it leaves out), with JavaScript on (axe in the page) and
 * off (axe on a snapshot in the inspector), on both kinds of screen; and without JavaScript it must
 * judge what <noscript> shows. Each page is new to the run (a random word in its markup changes
 * every part of it), so none is skipped as checked before.
 */
let server: Server
let baseUrl: string
let browser: Browser

function page(body: string): string {
  // A class of its own on <body> makes every element of the page new to this run: checkAccessibility checks a state with something new.
  return `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>Check</title></head><body class="c-${randomBytes(4).toString('hex')}">${body}</body></html>`
}

const pages: Record<string, () => string> = {
  // image-alt and button-name: critical.
  '/serious': () => page('<main><h1>Serious</h1><img src="/pixel.png"><button></button></main>'),
  // No main landmark (region, landmark-one-main), a skipped heading level (heading-order): moderate only.
  '/mild': () => page('<h1>Mild</h1><h3>Skipped a level</h3><p>Text outside any landmark.</p>'),
  // The fault is in what a browser without script shows.
  '/noscript': () => page('<main><h1>Noscript</h1><noscript><img src="/pixel.png"></noscript></main>'),
  // One page's parts known to the run, then the same page with one new element, which has a fault.
  '/known': () => known(''),
  '/known-plus': () => known('<button></button>'),
  // One address, first without a fault, then with one (the test sets which).
  '/changing': () => (changingIsSerious ? pages['/serious']!() : pages['/mild']!()),
}
let changingIsSerious = false

/** The same classes on every load of this run: only what `extra` adds is new after the first check. */
const runClass = `c-${randomBytes(4).toString('hex')}`
let knownLoads = 0
function known(extra: string): string {
  // Each variant of the test its own page (the parts' scope is the viewport and, with <noscript>, the mode; not the test).
  knownLoads += 1
  return `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>Known</title></head><body class="${runClass} ${currentVariant}"><main><h1>Known</h1><p>Words ${knownLoads}</p>${extra}</main></body></html>`
}
let currentVariant = ''

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!
    if (path === '/pixel.png') {
      response.writeHead(200, { 'content-type': 'image/png' })
      response.end(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64'))
      return
    }
    const make = pages[path]
    response.writeHead(make ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' })
    response.end(make ? make() : 'not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => server?.close(resolve))
})

describe.each([
  { name: 'JS on, desktop', javaScript: true, viewport: 'desktop' },
  { name: 'JS off, desktop', javaScript: false, viewport: 'desktop' },
  { name: 'JS on, phone', javaScript: true, viewport: 'phone' },
  { name: 'JS off, phone', javaScript: false, viewport: 'phone' },
] as const)('$name', ({ javaScript, viewport }) => {
  test('the check fails on a serious or critical violation, names it, and passes a page with moderate faults only', async () => {
    const journey = await newJourneyContext(browser, { javaScript, viewport, baseUrl })
    onTestFinished(() => journey.close())
    const { page } = journey

    await page.goto('/serious')
    const failure = await checkAccessibility(page).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    )
    expect(failure).toMatch(/axe found 2 serious or critical violation\(s\) on http:\/\/127\.0\.0\.1:\d+\/serious/)
    expect(failure).toContain('[critical] image-alt')
    expect(failure).toContain('[critical] button-name')

    await page.goto('/mild')
    await checkAccessibility(page)

    // One address checked again with a #fragment, its page changed meanwhile: the check judges the
    // newer page (without JavaScript, the inspector must load the new snapshot, not scroll the old one).
    changingIsSerious = false
    await page.goto('/changing')
    await checkAccessibility(page)
    changingIsSerious = true
    await page.goto('/mild')
    await page.goto('/changing#again')
    await expect(checkAccessibility(page)).rejects.toThrow(/\[critical\] image-alt/)
  })

  test('a state with one new element is judged on it: its fault is found, though the rest of the page was checked before', async () => {
    currentVariant = `v-${javaScript ? 'on' : 'off'}-${viewport}`
    const journey = await newJourneyContext(browser, { javaScript, viewport, baseUrl })
    onTestFinished(() => journey.close())
    const { page } = journey
    await page.goto('/known')
    await checkAccessibility(page)
    await page.goto('/known-plus')
    const failure = await checkAccessibility(page).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    )
    expect(failure).toMatch(/axe found 1 serious or critical violation\(s\)/)
    expect(failure).toContain('[critical] button-name')
  })

  test(`the check judges what <noscript> shows ${javaScript ? 'only without JavaScript (it passes here)' : 'without JavaScript (it fails here)'}`, async () => {
    const journey = await newJourneyContext(browser, { javaScript, viewport, baseUrl })
    onTestFinished(() => journey.close())
    await journey.page.goto('/noscript')
    const outcome = checkAccessibility(journey.page)
    if (javaScript) await outcome
    else await expect(outcome).rejects.toThrow(/\[critical\] image-alt/)
  })
})
