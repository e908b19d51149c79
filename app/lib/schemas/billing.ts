import { z } from 'zod'
import { LicenceSchema } from './licensing'
import { CHECKOUT_STATUSES, PURCHASABLE_PLANS } from '~/lib/billing/types'
import { PLANS } from '~/lib/licensing/plans'

const plan = z.enum(PURCHASABLE_PLANS, { error: 'Choose the Team or the Business plan.' })

/** A plan's seat range (app/lib/licensing/plans.ts), as a field error on seats. */
function seatsWithinPlan(value: { plan: (typeof PURCHASABLE_PLANS)[number]; seats: number }, ctx: z.RefinementCtx): void {
  const { minSeats, maxSeats, name } = PLANS[value.plan]
  if (value.seats < minSeats || value.seats > maxSeats) {
    ctx.addIssue({ code: 'custom', path: ['seats'], message: `The ${name} plan has ${minSeats} to ${maxSeats} seats.` })
  }
}

/** POST /api/billing/checkout/session. */
export const CheckoutBodySchema = z
  .object({
    plan,
    seats: z.number({ error: 'Enter the number of seats.' }).int('Enter a whole number of seats.'),
  })
  .strict()
  .superRefine(seatsWithinPlan)

/** The /settings/billing form: the same rules, on form fields. */
export const CheckoutFormSchema = z
  .object({
    plan,
    seats: z.number({ error: 'Enter the number of seats.' }).int('Enter a whole number of seats.'),
  })
  .superRefine(seatsWithinPlan)

const utc = z.iso.datetime({ offset: true })

export const BillingOverviewSchema = z.object({
  provider: z.enum(['none', 'test', 'stripe']),
  licence: LicenceSchema,
  seatsInUse: z.number().int().min(0),
})

export const BillingCheckoutSchema = z.object({
  id: z.uuid(),
  plan,
  seats: z.number().int(),
  status: z.enum(CHECKOUT_STATUSES),
  url: z.string().nullable(),
  expiresAtUtc: utc.nullable(),
  completedAtUtc: utc.nullable(),
  createdAtUtc: utc,
}).meta({ id: 'CheckoutSession' })

export const WebhookReceiptSchema = z.object({ received: z.literal(true), outcome: z.string() })
