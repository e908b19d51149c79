import { useEffect } from 'react'
import { data, Form, Link, redirect, useRevalidator } from 'react-router'
import { z } from 'zod'
import { Badge } from '~/components/ui/badge'
import { buttonClasses } from '~/components/ui/button'
import { CsrfInput } from '~/components/ui/csrf-input'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Pagination } from '~/components/ui/pagination'
import { SubmitButton } from '~/components/ui/submit-button'
import { loaded } from '~/components/reporting/item-action'
import { realtime } from '~/islands/realtime/realtime'
import { createServerApi } from '~/lib/api.server'
import { setFlash } from '~/lib/flash.server'
import { formatDateTime } from '~/lib/format'
import { isPortalPath, KIND_LABELS } from '~/lib/notifications'
import type { Notification } from '~/lib/schemas/notifications'
import { useLocale } from '~/root'
import type { Route } from './+types/notifications'

/**
 * /notifications (issue 31; docs/settings-appearance-notifications.md "In-app notifications"): my
 * notifications, newest first, a page at a time. Opening one marks it read and goes to its screen;
 * one or all can be marked read. Plain forms: it all works without JavaScript.
 */

export const NotificationActionSchema = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('open'), id: z.uuid() }),
  z.object({ intent: z.literal('read'), id: z.uuid() }),
  z.object({ intent: z.literal('read-all') }),
])

const PAGE_SIZE = 20

export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const url = new URL(request.url)
  const after = url.searchParams.get('after')
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), ...(after ? { after } : {}) })
  const page = loaded(await api.GET('/api/notifications', { query }), responseHeaders)
  return data({ page, paged: Boolean(after) }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const parsed = NotificationActionSchema.safeParse(Object.fromEntries(formData))
  if (!parsed.success) throw data('Unknown form.', { status: 400 })
  const back = backTo(request)
  switch (parsed.data.intent) {
    case 'open':
    case 'read': {
      const result = await api.POST('/api/notifications/{id}/read', { path: { id: parsed.data.id } })
      if (!result.ok) {
        await setFlash(responseHeaders, { tone: 'critical', message: result.error.status === 404 ? 'That notification is no longer there.' : 'The notification could not be marked as read. Try again.' })
        throw redirect(back, { headers: responseHeaders })
      }
      const link = result.data.notification.link
      if (parsed.data.intent === 'open' && isPortalPath(link)) throw redirect(link, { headers: responseHeaders })
      throw redirect(back, { headers: responseHeaders })
    }
    case 'read-all': {
      const result = await api.POST('/api/notifications/read-all')
      if (!result.ok) {
        await setFlash(responseHeaders, { tone: 'critical', message: 'The notifications could not be marked as read. Try again.' })
        throw redirect(back, { headers: responseHeaders })
      }
      const { marked } = result.data
      await setFlash(responseHeaders, { tone: 'success', message: marked === 0 ? 'Nothing was unread.' : `Marked ${marked} notification${marked === 1 ? '' : 's'} as read.` })
      throw redirect(back, { headers: responseHeaders })
    }
  }
}

/** Back to the page of the list the form was on. */
function backTo(request: Request): string {
  const url = new URL(request.url)
  const after = url.searchParams.get('after')
  return after ? `/notifications?after=${encodeURIComponent(after)}` : '/notifications'
}

export default function Notifications({ loaderData }: Route.ComponentProps) {
  const { page, paged } = loaderData
  const locale = useLocale()
  const revalidator = useRevalidator()
  // A notification that arrives (or is read in another tab) shows here without a reload.
  useEffect(
    () =>
      realtime.onNotificationsChanged(() => {
        if (revalidator.state === 'idle') void revalidator.revalidate()
      }),
    [revalidator],
  )
  return (
    <>
      <PageHeader
        title="Notifications"
        description={page.unread === 0 ? 'Nothing unread.' : `${page.unread} unread.`}
        actions={
          page.unread > 0 ? (
            <Form method="post">
              <CsrfInput />
              <SubmitButton intent="read-all" variant="secondary" pendingLabel="Marking…">
                Mark all as read
              </SubmitButton>
            </Form>
          ) : undefined
        }
      />
      {page.items.length === 0 ? (
        <EmptyState heading={paged ? 'No older notifications' : 'No notifications yet'}>
          {paged ? (
            <Link to="/notifications">Back to the newest</Link>
          ) : (
            'Reviews assigned to you, transmittals sent to you, items assigned to you and other work for you will appear here. Choose which in Settings › Notifications.'
          )}
        </EmptyState>
      ) : (
        <ul className="flex flex-col divide-y divide-border rounded-lg border border-border bg-surface" aria-label="Notifications">
          {page.items.map((notification) => (
            <NotificationRow key={notification.id} notification={notification} locale={locale} />
          ))}
        </ul>
      )}
      <Pagination label="Notification pages" previous={paged ? { after: null } : null} next={page.nextCursor ? { after: page.nextCursor } : null} />
      <p className="mt-4 text-sm text-muted">
        <Link to="/settings/notifications">Choose which notifications you get</Link>
      </p>
    </>
  )
}

function NotificationRow({ notification, locale }: { notification: Notification; locale: string }) {
  const unread = notification.readAt === null
  return (
    <li className="flex flex-col gap-2 p-4 sm:flex-row sm:items-start sm:justify-between" data-unread={unread ? 'true' : 'false'}>
      <div className="flex min-w-0 flex-col gap-1">
        <div className="flex flex-wrap items-center gap-2 text-sm text-muted">
          {unread ? <Badge tone="info">Unread</Badge> : null}
          <span>{KIND_LABELS[notification.kind]}</span>
          <span aria-hidden="true">·</span>
          <time dateTime={notification.createdAt}>{formatDateTime(notification.createdAt, locale)}</time>
        </div>
        <Form method="post">
          <CsrfInput />
          <input type="hidden" name="id" value={notification.id} />
          <button
            type="submit"
            name="intent"
            value="open"
            className={`cursor-pointer text-left break-words text-primary-strong underline-offset-4 hover:underline ${unread ? 'font-semibold' : ''}`}
          >
            {notification.title}
          </button>
        </Form>
      </div>
      {unread ? (
        <Form method="post" className="shrink-0">
          <CsrfInput />
          <input type="hidden" name="id" value={notification.id} />
          <button type="submit" name="intent" value="read" className={buttonClasses({ variant: 'secondary', size: 'sm' })}>
            Mark as read
          </button>
        </Form>
      ) : null}
    </li>
  )
}

export function meta() {
  return [{ title: 'Notifications · Site Portal' }]
}
