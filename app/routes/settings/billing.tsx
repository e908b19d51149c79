import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form } from 'react-router'
import { Banner } from '~/components/ui/banner'
import { Card } from '~/components/ui/card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { ErrorList } from '~/components/ui/error-list'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import { PURCHASABLE_PLANS } from '~/lib/billing/types'
import { CURRENCY, PLANS } from '~/lib/licensing/plans'
import { CheckoutFormSchema } from '~/lib/schemas/billing'
import { useLocale } from '~/root'
import type { Route } from './+types/billing'
import { LicenceSummary } from './billing-licence'
import { loadOverview, startCheckout } from './billing.server'

/**
 * /settings/billing (spec §2 "web checkout"; docs/billing.md): the organisation's licence and, for
 * administrators, a plan and a number of seats to buy. The action starts a checkout and sends the
 * browser to the payment provider's page; the licence changes only when the provider confirms the
 * payment. With no provider configured the page says so. Works without JavaScript.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  // One idempotency key per rendered form: submitting it twice starts one checkout.
  return data({ ...(await loadOverview(api, responseHeaders)), idempotencyKey: crypto.randomUUID() }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  switch (formData.get('intent')) {
    case 'checkout':
      return startCheckout(api, formData, responseHeaders)
    default:
      throw data('Unknown form.', { status: 400 })
  }
}

export default function BillingPage({ loaderData, actionData }: Route.ComponentProps) {
  const locale = useLocale()
  if (!loaderData.isAdmin) {
    return (
      <div className="flex flex-col gap-2">
        <h2 className="text-xl font-semibold">Billing</h2>
        <p className="text-sm text-muted">Only administrators of this organisation can see and change its plan and seats.</p>
      </div>
    )
  }
  const { overview, idempotencyKey } = loaderData
  return (
    <div className="flex max-w-2xl flex-col gap-6">
      <h2 className="text-xl font-semibold">Billing</h2>
      <Card>
        <h3 className="mb-3 text-lg font-semibold">Your licence</h3>
        <LicenceSummary licence={overview.licence} seats={loaderData.seats} locale={locale} />
      </Card>
      {overview.provider === 'none' ? (
        <Banner tone="info" title="Online payment is not set up">
          Online payment is not set up for this portal. Contact whoever runs it to change your plan or number of seats.
        </Banner>
      ) : (
        <CheckoutForm
          lastResult={actionData?.result}
          idempotencyKey={idempotencyKey}
          seatsInUse={overview.seatsInUse}
          currentPlan={overview.licence.plan}
          testProvider={overview.provider === 'test'}
          locale={locale}
        />
      )}
    </div>
  )
}

type CheckoutFormProps = {
  lastResult: SubmissionResult<string[]> | undefined
  idempotencyKey: string
  seatsInUse: number
  currentPlan: string
  testProvider: boolean
  locale: string
}

function CheckoutForm({ lastResult, idempotencyKey, seatsInUse, currentPlan, testProvider, locale }: CheckoutFormProps) {
  const [form, fields] = useForm({
    id: 'billing-checkout',
    lastResult,
    defaultValue: { plan: currentPlan === 'business' ? 'business' : 'team', seats: String(Math.max(seatsInUse, 1)) },
    defaultNoValidate: false,
    constraint: getZodConstraint(CheckoutFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: CheckoutFormSchema }),
  })
  const money = (cents: number) => new Intl.NumberFormat(locale, { style: 'currency', currency: CURRENCY }).format(cents / 100)
  return (
    <Card>
      <h3 className="mb-1 text-lg font-semibold">Buy a plan</h3>
      <p className="mb-4 text-sm text-muted">
        You pay on the payment provider&apos;s page. Your licence changes as soon as the provider confirms the payment.
        {testProvider ? ' This portal uses the built-in test provider: no money is charged.' : null}
      </p>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-5">
        <CsrfInput />
        <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
        <FormError id={form.errorId} errors={form.errors} />
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-2 text-sm font-medium text-text">Plan</legend>
          <ErrorList id={fields.plan.errorId} errors={fields.plan.errors} />
          {PURCHASABLE_PLANS.map((key) => {
            const plan = PLANS[key]
            const { key: reactKey, ...props } = getInputProps(fields.plan, { type: 'radio', value: key })
            return (
              <label key={reactKey ?? key} className="flex cursor-pointer items-start gap-3">
                <input {...props} id={`${fields.plan.id}-${key}`} className="mt-0.5 size-5 shrink-0 accent-primary" />
                <span className="flex flex-col">
                  <span className="text-sm font-medium text-text">{plan.name}</span>
                  <span className="text-sm text-muted">
                    {money(plan.pricePerSeatMonthly)} per seat a month, {plan.minSeats} to {plan.maxSeats} seats
                    {plan.features.includes('identity-provider-sign-in') ? '; sign-in through your identity provider' : ''}
                  </span>
                </span>
              </label>
            )
          })}
        </fieldset>
        <Field
          label="Seats"
          help={`One seat for every active member and every pending invite: at least ${seatsInUse} (in use now).`}
          inputProps={{ ...getInputProps(fields.seats, { type: 'number' }), inputMode: 'numeric', className: 'max-w-40' }}
          errors={fields.seats.errors}
        />
        <SubmitButton intent="checkout" pendingLabel="Opening the payment page…" className="self-start">
          Continue to payment
        </SubmitButton>
      </Form>
    </Card>
  )
}

export function meta() {
  return [{ title: 'Billing · Settings · Site Portal' }]
}
