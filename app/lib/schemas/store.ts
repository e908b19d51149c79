import { z } from 'zod'
import { LICENCE_STATUSES, PLAN_KEYS } from '~/lib/licensing/plans'
import { LicenceSchema } from '~/lib/schemas/licensing'
import { LINK_CODE_ALPHABET, LINK_CODE_LENGTH, STORE_KEYS, STORE_STATES, type LinkCode, type StoreLinkResult, type StoreOverview, type StoreSubscription } from '~/lib/store/types'

/**
 * Linking a store subscription (issue 16, docs/store-subscriptions.md): the bodies of
 * POST /api/iap/link/complete and /api/iap/verify, the /settings/link forms, and the answers.
 */

const codeText = `${LINK_CODE_LENGTH} letters and digits, e.g. K7QM-3TXA`

/** The code as people type it: case, spaces and dashes do not matter; answered normalised (K7QM3TXA). */
export const LinkCodeInputSchema = z
  .string({ error: `code must be the link code: ${codeText}.` })
  .max(40, `code must be the link code: ${codeText}.`)
  .transform((text) => text.toUpperCase().replace(/[\s-]/g, ''))
  .refine((code) => code.length === LINK_CODE_LENGTH && [...code].every((c) => LINK_CODE_ALPHABET.includes(c)), `code must be the link code: ${codeText}.`)

const productId = z.string({ error: 'productId must be the store product id of the subscription.' }).min(1, 'productId must be the store product id of the subscription.').max(200, 'productId must be at most 200 characters.')

/** POST /api/iap/link/complete: the code, the store, the product, and the store's proof of purchase. */
export const LinkCompleteSchema = z.discriminatedUnion(
  'store',
  [
    z
      .object({
        store: z.literal('apple'),
        code: LinkCodeInputSchema,
        productId,
        transactionId: z
          .string({ error: 'transactionId must be the App Store transaction id (digits).' })
          .regex(/^\d{1,30}$/, 'transactionId must be the App Store transaction id (digits).'),
      })
      .strict(),
    z
      .object({
        store: z.literal('google'),
        code: LinkCodeInputSchema,
        productId,
        purchaseToken: z
          .string({ error: 'purchaseToken must be the Google Play purchase token.' })
          .regex(/^[A-Za-z0-9._:-]{10,4096}$/, 'purchaseToken must be the Google Play purchase token.'),
        packageName: z
          .string({ error: 'packageName must be the Android package name of the app.' })
          .regex(/^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/, 'packageName must be the Android package name of the app.')
          .max(255, 'packageName must be at most 255 characters.'),
      })
      .strict(),
  ],
  { error: 'store must be apple or google.' },
)
export type LinkCompleteInput = z.output<typeof LinkCompleteSchema>

/** POST /api/iap/verify, and the "Check now" form of /settings/link. */
export const VerifySchema = z.object({ subscriptionId: z.uuid({ error: 'subscriptionId must be the id of a linked subscription.' }) }).strict()
export const VerifyFormSchema = z.object({ subscriptionId: z.uuid({ error: 'Choose a linked subscription.' }) })
/**
 * The "Get a link code" form: the idempotency key the page put in it, so sending the form again
 * (a reload of the answer without JavaScript) shows the same code instead of replacing it.
 */
export const LinkStartFormSchema = z.object({ requestKey: z.uuid({ error: 'Reload the page and try again.' }) })

// ---- Answers ----

const utc = z.iso.datetime().describe('ISO 8601, UTC.')

export const LinkCodeSchema = z.object({
  code: z.string().regex(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/),
  link: z.url(),
  createdAtUtc: utc,
  expiresAtUtc: utc,
}).meta({ id: 'LinkCode' }) satisfies z.ZodType<LinkCode>

export const StoreSubscriptionSchema = z.object({
  id: z.uuid(),
  store: z.enum(STORE_KEYS),
  productId: z.string(),
  plan: z.enum(PLAN_KEYS),
  seats: z.number().int().min(1),
  environment: z.string(),
  state: z.enum(STORE_STATES),
  licenceStatus: z.enum(LICENCE_STATUSES),
  expiresAtUtc: utc.nullable(),
  autoRenew: z.boolean().nullable(),
  linkedAtUtc: utc,
  linkedBy: z.object({ id: z.uuid(), displayName: z.string() }),
  lastVerifiedAtUtc: utc,
  isLicenceSource: z.boolean(),
}).meta({ id: 'StoreSubscription' }) satisfies z.ZodType<StoreSubscription>

export const StoreOverviewSchema = z.object({
  stores: z.object({ apple: z.boolean(), google: z.boolean() }),
  liveCodeExpiresAtUtc: utc.nullable(),
  subscriptions: z.array(StoreSubscriptionSchema),
}) satisfies z.ZodType<StoreOverview>

export const StoreLinkResultSchema = z.object({
  subscription: StoreSubscriptionSchema,
  licence: LicenceSchema,
  licenceApplied: z.boolean(),
}).meta({ id: 'StoreLinkResult' }) satisfies z.ZodType<StoreLinkResult>
