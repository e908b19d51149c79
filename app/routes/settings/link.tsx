import { getFormProps, useForm } from '@conform-to/react'
import { data, Form } from 'react-router'
import { Badge, type BadgeTone } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { Card } from '~/components/ui/card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { FormError } from '~/components/ui/form-error'
import { QrCode } from '~/components/ui/qr-code'
import { Section } from '~/components/ui/section'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime } from '~/lib/format'
import { PLANS } from '~/lib/licensing/plans'
import { STORE_NAMES, STORE_STATE_LABELS, type LinkCode, type StoreOverview, type StoreState, type StoreSubscription } from '~/lib/store/types'
import { useLocale } from '~/root'
import type { Route } from './+types/link'
import { checkSubscription, loadLinkPage, startLinkCode, unknownLinkIntent, type LinkActionData } from './link.server'

/**
 * /settings/link (spec §2 "link subscription"; docs/store-subscriptions.md): an administrator gets a
 * short code that the buyer types in the mobile app, so a subscription bought in the App Store or
 * Google Play becomes the organisation's licence; the linked subscriptions with "Check now".
 * Works without JavaScript; others than administrators get a plain message.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  return data(await loadLinkPage(api, request, responseHeaders), { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  switch (String(formData.get('intent') ?? '')) {
    case 'start':
      return startLinkCode(api, formData, responseHeaders)
    case 'verify':
      return checkSubscription(api, formData, responseHeaders)
    default:
      return unknownLinkIntent()
  }
}

export default function LinkSubscription({ loaderData, actionData }: Route.ComponentProps) {
  const { overview, requestKey, openedLink } = loaderData
  const answer = actionData as LinkActionData | undefined
  const appHint = openedLink ? (
    <Banner tone="info" title="This link is for the mobile app">
      Open it on the phone where the Site Portal app is installed, or type its code in the app under Link subscription.
    </Banner>
  ) : null
  if (!overview) {
    return (
      <Card className="flex max-w-2xl flex-col gap-4">
        {appHint}
        <h2 className="text-lg font-semibold">Link subscription</h2>
        <p className="text-sm text-muted">Only administrators of this organisation can link a subscription bought in the mobile app. Ask one of them.</p>
      </Card>
    )
  }
  const configured = overview.stores.apple || overview.stores.google
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      {appHint}
      {answer?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={answer.notice.correlationId}>
          {answer.notice.message}
        </Banner>
      ) : null}
      <Card>
        <h2 className="mb-1 text-lg font-semibold">Link a subscription bought in the app</h2>
        <p className="mb-2 text-sm text-muted">
          If someone in your organisation bought a subscription in the Site Portal app from the App Store or Google Play, link it here: the whole organisation then gets
          its plan and seats, for as long as the store keeps it running.
        </p>
        <ol className="mb-4 list-decimal pl-5 text-sm text-muted">
          <li>Get a link code here.</li>
          <li>In the app, signed in to this organisation, the person who bought it opens Link subscription and types the code, or opens the link on their phone.</li>
          <li>The app sends the store’s proof of purchase; the store confirms it, and the subscription shows below.</li>
        </ol>
        {configured ? <StartForm requestKey={requestKey} answer={answer} liveUntil={overview.liveCodeExpiresAtUtc} stores={overview.stores} /> : <NotConfigured />}
      </Card>
      <LinkedSubscriptions subscriptions={overview.subscriptions} />
    </div>
  )
}

function NotConfigured() {
  return (
    <Banner tone="info" title="App store subscriptions are not set up">
      This portal is not connected to the App Store or Google Play, so subscriptions bought in the app cannot be linked yet. An operator can set it up (see the store
      subscriptions guide). You can still buy seats on the Billing tab; everything else works as usual.
    </Banner>
  )
}

function StartForm({ requestKey, answer, liveUntil, stores }: { requestKey: string; answer: LinkActionData | undefined; liveUntil: string | null; stores: StoreOverview['stores'] }) {
  const locale = useLocale()
  const [form] = useForm({ id: 'link-start', lastResult: answer?.intent === 'start' ? answer.result : undefined })
  const which = [stores.apple && STORE_NAMES.apple, stores.google && STORE_NAMES.google].filter(Boolean).join(' and ')
  return (
    <div className="flex flex-col gap-4">
      {answer?.code ? <NewCode code={answer.code} /> : null}
      {!answer?.code && liveUntil ? (
        <p className="text-sm text-muted">A code made earlier works until {formatDateTime(liveUntil, locale)}. Getting a new code replaces it.</p>
      ) : null}
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-3">
        <CsrfInput />
        {/* Each page load brings a new key: sending the same form again (a reload of the answer) replays its code. */}
        <input type="hidden" name="requestKey" value={requestKey} />
        <FormError id={form.errorId} errors={form.errors} />
        <p className="text-sm text-muted">Codes work once, for 15 minutes, for {which} subscriptions.</p>
        <SubmitButton intent="start" pendingLabel="Getting a code…" className="self-start" variant={answer?.code ? 'secondary' : 'primary'}>
          {answer?.code ? 'Get another link code' : 'Get a link code'}
        </SubmitButton>
      </Form>
    </div>
  )
}

function NewCode({ code }: { code: LinkCode & { qrSvg: string } }) {
  const locale = useLocale()
  return (
    <div className="flex flex-col gap-4 rounded-lg border border-border bg-surface-muted p-4 sm:flex-row sm:items-center">
      <QrCode svg={code.qrSvg} label="QR code of the link, to open it on the phone" />
      <div className="flex flex-col gap-2">
        <p className="text-sm text-muted">Your link code</p>
        <p className="font-mono text-3xl font-semibold tracking-widest text-text">
          {code.code}
        </p>
        <p className="text-sm text-text">Works until {formatDateTime(code.expiresAtUtc, locale)}, once.</p>
        <p className="text-sm break-all text-muted">
          Or open this link on the phone: <a href={code.link}>{code.link}</a>
        </p>
      </div>
    </div>
  )
}

const STATE_TONES: Record<StoreState, BadgeTone> = {
  active: 'success',
  'renewal-off': 'info',
  'grace-period': 'warning',
  'billing-retry': 'warning',
  'on-hold': 'critical',
  paused: 'neutral',
  expired: 'neutral',
  refunded: 'critical',
  pending: 'warning',
}

function LinkedSubscriptions({ subscriptions }: { subscriptions: StoreSubscription[] }) {
  const locale = useLocale()
  const columns: Array<DataTableColumn<StoreSubscription>> = [
    { key: 'store', header: 'Store', rowHeader: true, cell: (s) => STORE_NAMES[s.store] },
    {
      key: 'product',
      header: 'Product',
      cell: (s) => (
        <span className="flex flex-col">
          <span>
            {PLANS[s.plan].name}, {s.seats} seats{s.isLicenceSource ? ' (the current licence)' : ''}
          </span>
          <span className="text-xs text-muted">{s.productId}</span>
        </span>
      ),
    },
    { key: 'state', header: 'Status', cell: (s) => <Badge tone={STATE_TONES[s.state]}>{STORE_STATE_LABELS[s.state]}</Badge> },
    {
      key: 'expires',
      header: 'Renews or expires',
      cell: (s) => (s.expiresAtUtc ? `${s.autoRenew && s.state === 'active' ? 'Renews' : 'Ends'} ${formatDateTime(s.expiresAtUtc, locale)}` : '—'),
    },
    { key: 'verified', header: 'Last checked', hideOnMobile: true, cell: (s) => formatDateTime(s.lastVerifiedAtUtc, locale) },
    { key: 'linkedBy', header: 'Linked by', hideOnMobile: true, cell: (s) => s.linkedBy.displayName },
    {
      key: 'check',
      header: <span className="sr-only">Actions</span>,
      cell: (s) => (
        <Form method="post">
          <CsrfInput />
          <input type="hidden" name="subscriptionId" value={s.id} />
          <SubmitButton intent="verify" variant="secondary" pendingLabel="Checking…">
            Check now<span className="sr-only"> ({STORE_NAMES[s.store]}, {s.productId})</span>
          </SubmitButton>
        </Form>
      ),
    },
  ]
  return (
    <Section title="Linked subscriptions" description="Each is checked with its store when linked and when you press Check now.">
      <DataTable
        caption="Linked subscriptions"
        captionHidden
        columns={columns}
        rows={subscriptions}
        rowKey={(s) => s.id}
        emptyState={
          <EmptyState heading="No subscriptions linked yet" headingLevel={3}>
            Once someone links a subscription from the app with a code, it shows here.
          </EmptyState>
        }
      />
    </Section>
  )
}

export function meta() {
  return [{ title: 'Link subscription · Settings · Site Portal' }]
}
