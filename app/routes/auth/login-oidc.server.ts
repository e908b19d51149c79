import { parseWithZod } from '@conform-to/zod/v4'
import { data, type AppLoadContext } from 'react-router'
import { createServerApi } from '~/lib/api.server'
import type { ApiError } from '~/lib/api/types'
import { isOidcErrorCode } from '~/lib/auth/oidc-errors'
import { failureStatus, formMessageFor } from '~/lib/forms'
import { OidcStartSchema } from '~/lib/schemas/oidc'

/**
 * The sign-in page's "company account" form (issue 16, docs/identity-provider.md): starts the
 * identity-provider redirect (POST /auth/oidc/authorize, auth status "redirecting") and hands the
 * page the provider's address to go to, with or without JavaScript. Failures come back as the
 * form's errors.
 */
export async function startCompanySignIn(request: Request, context: AppLoadContext, formData: FormData) {
  const submission = parseWithZod(formData, { schema: OidcStartSchema })
  if (submission.status !== 'success') {
    return data({ oidc: { result: submission.reply(), correlationId: null } }, { status: 400 })
  }
  const redirectTo = String(formData.get('redirectTo') ?? '')
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const result = await api.POST('/auth/oidc/authorize', { body: { organisation: submission.value.organisation, ...(redirectTo && { redirectTo }) } })
  if (!result.ok) {
    const message = oidcMessageFor(result.error)
    const fieldErrors: Record<string, string[]> = result.error.problem?.errors?.organisation ? { organisation: [message] } : {}
    return data(
      { oidc: { result: submission.reply({ formErrors: Object.keys(fieldErrors).length ? [] : [message], fieldErrors }), correlationId: result.error.correlationId ?? null } },
      { status: failureStatus(result.error), headers: responseHeaders },
    )
  }
  context.logger.info({ event: 'Auth.Oidc.Redirecting', correlationId: result.data.correlationId }, 'identity-provider redirect')
  // Not an HTTP redirect: the page's CSP (form-action 'self') rightly stops a form post from being
  // redirected to another site. The page shows the "redirecting" status and goes on by itself
  // (a meta refresh without JavaScript, location.assign with it), with a link as the fallback.
  const redirecting = { authorizationUrl: result.data.authorizationUrl, correlationId: result.data.correlationId }
  return data({ oidc: { result: submission.reply(), correlationId: null, redirecting } }, { headers: responseHeaders })
}

/** Our identity-provider problems are written for people, 502s included; the rest as any form. */
export function oidcMessageFor(error: ApiError): string {
  const detail = error.problem?.detail
  return isOidcErrorCode(error.problem?.code) && detail ? detail : formMessageFor(error)
}
