import type { OutboxEntry } from '~/islands/sync/outbox'
import { OFFLINE_BANNER, WAITING_TO_SEND } from '~/islands/sync/sync-text'
import { PRIORITY_LABELS, STATUS_LABELS } from '~/lib/reporting/labels'
import { RESPONSE_BODY_MAX } from '~/lib/reporting/limits'
import { projectTitle, reportTitle, type Item, type Project, type Report } from '~/lib/reporting/types'

/**
 * The pages the service worker answers with when there is no connection (field mode, issue 10):
 * plain HTML from the offline copy, styled by the app's own stylesheet, with no script. The item
 * page has a respond form whose post the worker keeps in the outbox. Pure functions: the worker
 * reads the copy and the outbox, these only write markup.
 */

export type OfflineFrame = {
  /** The app's stylesheet, inlined as the online pages do; empty when it is not cached. */
  css: string
  locale: string
  /** When the copy was last brought up to date, or null when it never was. */
  lastSyncedAt: string | null
}

export type RespondProblem = { body: string; requestClose: boolean; errors: string[] }

const card = 'rounded-lg border border-border bg-surface p-4 shadow-sm sm:p-6'
const link = 'text-primary-strong underline underline-offset-2'
const button =
  'inline-flex min-h-11 items-center justify-center gap-2 rounded-md border border-transparent bg-primary px-4 text-sm font-medium text-white hover:bg-primary-strong cursor-pointer'
const control = 'block w-full rounded-md border border-border-strong bg-surface px-3 py-2 text-base text-text'

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

type Html = { readonly html: string }
const raw = (html: string): Html => ({ html })

/** A template whose interpolations are escaped unless they are already markup. */
function h(strings: TemplateStringsArray, ...values: Array<string | number | null | undefined | Html | Html[]>): Html {
  let out = strings[0] ?? ''
  values.forEach((value, i) => {
    if (Array.isArray(value)) out += value.map((v) => v.html).join('')
    else if (value && typeof value === 'object') out += value.html
    else if (value !== null && value !== undefined) out += escapeHtml(String(value))
    out += strings[i + 1] ?? ''
  })
  return raw(out)
}

function formatMoment(iso: string, locale: string): string {
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso))
  } catch {
    return iso
  }
}

function formatDay(isoDate: string, locale: string): string {
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`))
  } catch {
    return isoDate
  }
}

function page(frame: OfflineFrame, title: string, body: Html): string {
  const synced = frame.lastSyncedAt ? formatMoment(frame.lastSyncedAt, frame.locale) : 'never'
  return (
    '<!DOCTYPE html>' +
    h`<html lang="${frame.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Site Portal (offline)</title><style>${raw(frame.css.replace(/<\/style/gi, '<\\/style'))}</style></head>
<body class="min-h-screen text-text">
<header class="border-b border-border bg-surface"><div class="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
<a href="/dashboard" class="font-semibold text-text no-underline">Site Portal</a>
<nav aria-label="Offline copy"><ul class="flex gap-4 text-sm"><li><a class="${link}" href="/dashboard">Assigned to you</a></li><li><a class="${link}" href="/projects">Projects</a></li></ul></nav>
</div></header>
<main class="mx-auto flex max-w-6xl flex-col gap-6 px-4 py-6">
<div role="status" data-offline-copy class="rounded-md border-l-4 border-warning bg-warning-surface px-4 py-3 text-sm text-text"><p class="font-semibold text-warning">${OFFLINE_BANNER} ${synced}</p>
<p class="mt-1">You have no connection. This is what this device kept; responses you write are sent when the connection is back.</p></div>
${body}
</main></body></html>`.html
  )
}

function itemLine(item: Item, locale: string): Html {
  const due = item.dueDate ? h` · due ${formatDay(item.dueDate, locale)}` : raw('')
  return h`<li class="${card}"><a class="${link} font-medium" href="/items/${item.id}">#${item.number} ${item.title}</a>
<p class="mt-1 text-sm text-muted">${STATUS_LABELS[item.status]} · ${PRIORITY_LABELS[item.priority]}${due} · ${projectTitle(item.projectTitle)} / ${reportTitle(item.reportTitle)}</p></li>`
}

/** The items assigned to the user (the offline stand-in for the dashboard and lists). */
export function assignedPage(frame: OfflineFrame, items: Item[]): string {
  const list = items.length
    ? h`<ul class="flex flex-col gap-3">${items.map((item) => itemLine(item, frame.locale))}</ul>`
    : h`<p class="text-muted">No items assigned to you are in the offline copy.</p>`
  return page(frame, 'Assigned to you', h`<h1 class="text-2xl font-semibold">Assigned to you</h1>${list}`)
}

export function projectsPage(frame: OfflineFrame, projects: Project[], reports: Report[]): string {
  const blocks = projects.map((project) => {
    const own = reports.filter((r) => r.projectId === project.id)
    const lines = own.map((r) => h`<li><a class="${link}" href="/reports/${r.id}">${reportTitle(r.title)}</a></li>`)
    return h`<li class="${card}"><h2 class="font-semibold">${projectTitle(project.title)}${project.code ? ` (${project.code})` : ''}</h2>
${own.length ? h`<ul class="mt-2 flex flex-col gap-1 text-sm">${lines}</ul>` : h`<p class="mt-2 text-sm text-muted">No open reports in the offline copy.</p>`}</li>`
  })
  const list = projects.length ? h`<ul class="flex flex-col gap-3">${blocks}</ul>` : h`<p class="text-muted">No projects are in the offline copy.</p>`
  return page(frame, 'Projects', h`<h1 class="text-2xl font-semibold">Projects</h1>${list}`)
}

export function reportPage(frame: OfflineFrame, report: Report, items: Item[]): string {
  const list = items.length
    ? h`<ul class="flex flex-col gap-3">${items.map((item) => itemLine(item, frame.locale))}</ul>`
    : h`<p class="text-muted">No items of this report are in the offline copy.</p>`
  return page(
    frame,
    reportTitle(report.title),
    h`<p class="text-sm text-muted">${projectTitle(report.projectTitle)}</p><h1 class="text-2xl font-semibold">${reportTitle(report.title)}</h1>${list}`,
  )
}

function waitingList(entries: OutboxEntry[], locale: string): Html {
  if (!entries.length) return raw('')
  const lines = entries.map((entry) => {
    const photos = entry.photos.length + entry.storedPhotoIds.length
    const label =
      entry.state === 'refused'
        ? h`<p class="font-semibold text-critical-strong">Not sent</p><p class="text-sm">${entry.refusal}</p>`
        : h`<p class="font-semibold text-warning">${WAITING_TO_SEND}</p>`
    return h`<li class="rounded-md border border-border bg-surface-muted p-3" data-outbox-entry>${label}
<p class="mt-1 whitespace-pre-wrap">${entry.body}</p>
<p class="mt-1 text-sm text-muted">Written ${formatMoment(entry.createdAtUtc, locale)}${photos ? ` · ${photos} photo${photos === 1 ? '' : 's'}` : ''}${entry.requestClose ? ' · asks to close' : ''}</p></li>`
  })
  return h`<section aria-labelledby="outbox-title" class="flex flex-col gap-3"><h2 id="outbox-title" class="text-lg font-semibold">Your responses on this device</h2><ul class="flex flex-col gap-3">${lines}</ul></section>`
}

function fact(label: string, value: string | null): Html {
  return h`<div><dt class="text-sm text-muted">${label}</dt><dd>${value ?? '—'}</dd></div>`
}

export function itemPage(frame: OfflineFrame, item: Item, outbox: OutboxEntry[], problem?: RespondProblem): string {
  const errors = problem?.errors.length
    ? h`<div role="alert" class="rounded-md border-l-4 border-critical bg-critical-surface px-4 py-3 text-sm">${problem.errors.map((e) => h`<p>${e}</p>`)}</div>`
    : raw('')
  const invalid = problem?.errors.length ? raw(' aria-invalid="true"') : raw('')
  const respond =
    item.status === 'closed'
      ? h`<p class="text-muted">This item is closed.</p>`
      : h`<section aria-labelledby="respond-title" class="${card} flex flex-col gap-4"><h2 id="respond-title" class="text-lg font-semibold">Respond</h2>
<form method="post" action="/items/${item.id}" enctype="multipart/form-data" class="flex flex-col gap-4">
<input type="hidden" name="intent" value="respond">${errors}
<div class="flex flex-col gap-1.5"><label for="offline-body" class="font-medium">Your response</label><textarea id="offline-body" name="body" rows="4" required maxlength="${RESPONSE_BODY_MAX}" class="${control}"${invalid}>${problem?.body ?? ''}</textarea></div>
<div class="flex flex-col gap-1.5"><label for="offline-photos" class="font-medium">Photos (optional)</label><input id="offline-photos" type="file" name="photos" accept="image/*" multiple></div>
${item.status === 'open' ? h`<label class="flex items-center gap-2"><input type="checkbox" name="requestClose" value="on"${problem?.requestClose ? raw(' checked') : raw('')}> Ask to close this item</label>` : raw('')}
<div><button type="submit" class="${button}">Send response</button></div></form></section>`
  return page(
    frame,
    `#${item.number} ${item.title}`,
    h`<p class="text-sm"><a class="${link}" href="/reports/${item.reportId}">${reportTitle(item.reportTitle)}</a></p>
<h1 class="text-2xl font-semibold">#${item.number} ${item.title}</h1>
<dl class="${card} grid gap-3 sm:grid-cols-2">${fact('Status', STATUS_LABELS[item.status])}${fact('Priority', PRIORITY_LABELS[item.priority])}${fact('Assignee', item.assignee?.displayName ?? null)}${fact('Location', item.location)}${fact('Due', item.dueDate ? formatDay(item.dueDate, frame.locale) : null)}${fact('Project', projectTitle(item.projectTitle))}
<div class="sm:col-span-2"><dt class="text-sm text-muted">Description</dt><dd class="whitespace-pre-wrap">${item.description ?? '—'}</dd></div></dl>
${waitingList(outbox, frame.locale)}${respond}`,
  )
}

/** A page the copy does not hold, or no copy at all. */
export function missingPage(frame: OfflineFrame, hasCopy: boolean): string {
  const text = hasCopy
    ? 'This page is not in the offline copy on this device. Your assigned items are.'
    : 'This page needs a connection, and this device has no offline copy yet.'
  return page(frame, 'Not available offline', h`<h1 class="text-2xl font-semibold">Not available offline</h1><p>${text}</p>`)
}
