import { data, Form, Link } from 'react-router'
import { Badge, type BadgeTone } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { Button } from '~/components/ui/button'
import { Card } from '~/components/ui/card'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { Field } from '~/components/ui/field'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { SelectField } from '~/components/ui/select-field'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import {
  MAIL_STATUS_LABELS,
  MAIL_STATUS_TONES,
  MAIL_STATUSES,
  mailOutboxHref,
  mailOutboxQuery,
  type MailMessageSummary,
  type MailOutboxQuery,
  type MailTransportHealth,
  type MailTransportsResponse,
} from '~/lib/admin/mail-outbox'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime } from '~/lib/format'
import { MAIL_SEARCH_MAX } from '~/lib/schemas/admin-mail-outbox'
import { useLocale } from '~/root'
import type { Route } from './+types/mail-outbox'
import { loadMailOutbox } from './mail-outbox.server'

/**
 * Administration › Mail outbox (docs/admin/mail.md "The outbox page"): the health of the
 * transports the organisation's mail goes through, then its messages with status, attempts and
 * last error, filtered and paged in the URL. Each message opens on its own page (retry, cancel).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = mailOutboxQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadMailOutbox(api, query, responseHeaders)
  return data({ query, ...page }, { headers: responseHeaders })
}

export default function MailOutbox({ loaderData }: Route.ComponentProps) {
  const { query, messages, nextCursor, templates, templateTitles, transports } = loaderData
  const templateName = (key: string) => templateTitles[key] ?? key
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'MailOutbox')
  const filtered = query.status !== null || query.template !== null || query.to !== null
  return (
    <>
      <PageHeader
        title="Mail outbox"
        description="Every message the portal sends for the organisation: queued, being sent, sent, or given up on (dead). Open a message to read it, send it again or cancel it."
      />
      <div className="flex flex-col gap-10">
        <Section title="Delivery" description="Where the organisation’s mail goes, and how sending through it has gone.">
          {transports ? <Transports transports={transports} locale={locale} /> : <p className="text-sm text-muted">The delivery figures could not be loaded just now.</p>}
        </Section>
        <Section
          title="Messages"
          actions={
            query.after || filtered ? (
              <Link to={query.after ? mailOutboxHref({ ...query, after: null }) : mailOutboxHref({})} className="text-sm text-primary-strong underline underline-offset-2">
                {query.after ? 'First page' : 'Clear filters'}
              </Link>
            ) : undefined
          }
        >
          <div className="flex flex-col gap-4">
            <Filters query={query} templates={templates} templateName={templateName} />
            <Messages messages={messages} locale={locale} next={nextCursor} later={query.after !== null} filtered={filtered} templateName={templateName} />
          </div>
        </Section>
      </div>
    </>
  )
}

function Transports({ transports, locale }: { transports: MailTransportsResponse; locale: string }) {
  if (transports.noTransport) {
    return (
      <Banner tone="warning" title="Mail is not being sent">
        No transport is set up, so messages stay queued. Save the organisation’s SMTP server under Configuration › Mail, or ask whoever runs the server to set up mail
        (<a href="/help/operations#mail">operations guide</a>).
      </Banner>
    )
  }
  return (
    <ul className="grid gap-4 md:grid-cols-2">
      {transports.items.map((transport) => (
        <li key={transport.key}>
          <TransportCard transport={transport} locale={locale} />
        </li>
      ))}
    </ul>
  )
}

function transportState(t: MailTransportHealth): { tone: BadgeTone; label: string } {
  if (!t.inUse) return { tone: 'neutral', label: 'Not in use' }
  if (t.consecutiveFailures > 0) return { tone: 'critical', label: `Failing: ${t.consecutiveFailures} in a row` }
  if (t.lastSuccessUtc) return { tone: 'success', label: 'Working' }
  return { tone: 'info', label: 'Nothing sent yet' }
}

function TransportCard({ transport, locale }: { transport: MailTransportHealth; locale: string }) {
  const state = transportState(transport)
  const when = (iso: string | null) => (iso ? formatDateTime(iso, locale) : 'Never')
  return (
    <Card className="flex h-full flex-col gap-3 p-5">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <h3 className="font-semibold text-text">{transport.label}</h3>
          {transport.description ? <p className="text-sm break-words text-muted">{transport.description}</p> : null}
        </div>
        <Badge tone={state.tone}>{state.label}</Badge>
      </div>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-muted">Last success</dt>
        <dd>{when(transport.lastSuccessUtc)}</dd>
        <dt className="text-muted">Last failure</dt>
        <dd>{when(transport.lastFailureUtc)}</dd>
        <dt className="text-muted">Failures in a row</dt>
        <dd>{transport.consecutiveFailures}</dd>
        <dt className="text-muted">Failures in all</dt>
        <dd>{transport.failureCount}</dd>
      </dl>
      {transport.lastError ? (
        <p className="rounded-md border border-critical/30 bg-critical-surface p-3 text-sm break-words text-critical">
          <span className="font-medium">Last error: </span>
          {transport.lastError}
        </p>
      ) : null}
    </Card>
  )
}

/** The filters, in the URL: a GET form that works without JavaScript. */
function Filters({ query, templates, templateName }: { query: MailOutboxQuery; templates: readonly string[]; templateName: (key: string) => string }) {
  const templateChoices = query.template && !templates.includes(query.template) ? [...templates, query.template] : templates
  return (
    <Form
      method="get"
      action="/admin/mail-outbox"
      aria-label="Filter messages"
      className="flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-end"
      key={`${query.status}-${query.template}-${query.to}`}
    >
      <SelectField
        label="Status"
        selectProps={{ name: 'status', id: 'mail-status', defaultValue: query.status ?? '' }}
        options={[{ value: '', label: 'Any status' }, ...MAIL_STATUSES.map((s) => ({ value: s, label: MAIL_STATUS_LABELS[s] }))]}
      />
      <SelectField
        label="Template"
        selectProps={{ name: 'template', id: 'mail-template', defaultValue: query.template ?? '' }}
        options={[{ value: '', label: 'Any template' }, ...templateChoices.map((t) => ({ value: t, label: templateName(t) }))]}
      />
      <Field
        label="Recipient"
        inputProps={{ name: 'to', id: 'mail-to', type: 'search', defaultValue: query.to ?? '', maxLength: MAIL_SEARCH_MAX, placeholder: 'Part of an address' }}
      />
      <Button type="submit" variant="secondary">
        Show messages
      </Button>
    </Form>
  )
}

function Messages({
  messages,
  locale,
  next,
  later,
  filtered,
  templateName,
}: {
  messages: readonly MailMessageSummary[]
  locale: string
  next: string | null
  later: boolean
  filtered: boolean
  templateName: (key: string) => string
}) {
  return (
    <DataTable
      caption="Messages"
      captionHidden
      rows={messages}
      rowKey={(m) => m.id}
      emptyState={
        <EmptyState heading={filtered ? 'No messages match' : 'No mail yet'} headingLevel={3}>
          {filtered ? 'Try another status, template or address.' : 'Invitations, password resets and notifications appear here as the portal sends them.'}
        </EmptyState>
      }
      // Keyset paging goes forward; the screen offers "First page" instead of a previous link.
      pagination={{ next: next ? { after: next } : null, previous: null, summary: later ? 'A later page' : undefined, label: 'Message pages' }}
      columns={[
        {
          key: 'subject',
          header: 'Subject',
          rowHeader: true,
          cell: (m) => (
            <Link to={`/admin/mail-outbox/${m.id}`} className="font-medium break-words text-primary-strong underline underline-offset-2">
              {m.subject}
            </Link>
          ),
        },
        {
          key: 'to',
          header: 'To',
          cell: (m) => (
            <span className="break-all">
              {m.to}
              {/* Only platform operators are shown mail of no organisation: say where it came from. */}
              {m.withoutOrganisation ? <span className="block text-xs text-muted">No organisation: asked from the sign-in page</span> : null}
            </span>
          ),
        },
        { key: 'status', header: 'Status', cell: (m) => <Badge tone={MAIL_STATUS_TONES[m.status]}>{MAIL_STATUS_LABELS[m.status]}</Badge> },
        { key: 'attempts', header: 'Attempts', align: 'end', cell: (m) => m.attempts },
        { key: 'template', header: 'Template', hideOnMobile: true, cell: (m) => templateName(m.template) },
        { key: 'created', header: 'Created', hideOnMobile: true, cell: (m) => formatDateTime(m.createdAtUtc, locale) },
        {
          key: 'error',
          header: 'Last error',
          hideOnMobile: true,
          cell: (m) => (m.lastError && m.status !== 'sent' ? <span className="line-clamp-2 text-xs break-words text-critical">{m.lastError}</span> : null),
        },
      ]}
    />
  )
}

export function meta() {
  return [{ title: 'Mail outbox · Site Portal' }]
}
