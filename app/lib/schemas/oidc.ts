import { z } from 'zod'

/**
 * Sign-in through an identity provider (issue 16, docs/identity-provider.md): the sign-in page's
 * "company account" form and the backend's two calls share these shapes.
 */

/** An organisation's short name, as in its sign-in link `/auth/login?org=acme`. */
export const ORGANISATION_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,78}[a-z0-9])?$/

export const organisationField = z
  .string({ error: 'Enter your organisation’s address.' })
  .trim()
  .toLowerCase()
  .min(1, 'Enter your organisation’s address.')
  .max(80, 'An organisation’s address has at most 80 characters.')
  .regex(ORGANISATION_SLUG, 'Enter the short name from your organisation’s sign-in link, like acme (letters, digits and dashes).')

/** The `intent` of the sign-in page's company-account form (the page has two forms). */
export const OIDC_INTENT = 'oidc'

/** The sign-in page's form: which organisation's provider to use. */
export const OidcStartSchema = z.object({ organisation: organisationField })

/** POST /auth/oidc/authorize. */
export const OidcAuthorizeSchema = z.object({
  organisation: organisationField,
  /** Where to go once signed in: a same-site path; anything else means the dashboard. */
  redirectTo: z.string().max(2000, 'The return address is too long.').optional(),
})

/** Spec §4 "Auth status": the redirect has started; the browser goes to `authorizationUrl`. */
export const OidcAuthorizeResponseSchema = z.object({
  status: z.literal('redirecting'),
  authorizationUrl: z.url(),
  correlationId: z.string(),
  expiresAtUtc: z.iso.datetime(),
})

const param = (max: number) => z.string().max(max, 'The provider’s answer is too long.').optional()

/**
 * POST /auth/oidc/callback: the query the provider sent the browser back with (RFC 6749 §4.1.2,
 * RFC 9207 `iss`), as the callback page received it.
 */
export const OidcCallbackSchema = z.object({
  state: param(500),
  code: param(2000),
  iss: param(500),
  error: param(200),
  error_description: param(1000),
})

/** The callback's success: signed in (or waiting for the second factor); where to go next. */
export const OidcCallbackResponseSchema = z.object({
  requiresMfa: z.boolean(),
  redirectTo: z.string(),
  correlationId: z.string(),
  /** Whether this sign-in made the link between the provider's identity and the account. */
  linked: z.boolean(),
})

export type OidcAuthorizeResponse = z.output<typeof OidcAuthorizeResponseSchema>
export type OidcCallbackResponse = z.output<typeof OidcCallbackResponseSchema>
