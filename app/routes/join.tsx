import { getFormProps, getInputProps, getTextareaProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form, redirect } from 'react-router'
import { JoinRequestsMine } from '~/components/admin/invites-join-requests'
import { resultFor, type ReportingActionData } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import { createServerApi } from '~/lib/api.server'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor, replyWithApiError } from '~/lib/forms'
import { projectTitle } from '~/lib/reporting/types'
import { InviteCodeSchema, JoinRequestFormSchema } from '~/lib/schemas/admin-invites'
import { useLocale } from '~/root'
import type { Route } from './+types/join'
import { idempotencyKeyOf } from './admin/invites.server'

/**
 * /join (docs/admin/invites.md): where a signed-in person types an invite code they were given on
 * site, or asks an organisation to let them join (by its short name); their requests are listed
 * below. Both forms work without JavaScript and keep what was typed on an error.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const mine = await api.GET('/api/join-requests/mine')
  return data(
    {
      requests: mine.ok ? mine.data.items : [],
      requestsError: mine.ok ? null : { message: formMessageFor(mine.error), correlationId: mine.error.correlationId ?? null },
      idempotencyKey: crypto.randomUUID(),
    },
    { headers: responseHeaders },
  )
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const intent = String(formData.get('intent') ?? '')

  if (intent === 'code') {
    const submission = parseWithZod(formData, { schema: InviteCodeSchema })
    if (submission.status !== 'success') return data<ReportingActionData>({ intent, result: submission.reply() }, { status: 400 })
    const result = await api.POST('/api/project-invites/codes/claim', { body: submission.value, idempotencyKey: idempotencyKeyOf(formData, submission.value) })
    if (!result.ok)
      return data<ReportingActionData>({ intent, result: replyWithApiError(submission, result.error) }, { status: failureStatus(result.error), headers: responseHeaders })
    const { claimed } = result.data
    await setFlash(responseHeaders, {
      tone: 'success',
      message: `${claimed.joined ? `You joined ${claimed.organisationName} and` : 'You'} now have the project ${projectTitle(claimed.projectTitle)}.`,
    })
    throw redirect('/dashboard', { headers: responseHeaders })
  }

  if (intent === 'ask') {
    const submission = parseWithZod(formData, { schema: JoinRequestFormSchema })
    if (submission.status !== 'success') return data<ReportingActionData>({ intent, result: submission.reply() }, { status: 400 })
    const result = await api.POST('/api/join-requests', { body: submission.value, idempotencyKey: idempotencyKeyOf(formData, submission.value) })
    if (!result.ok) {
      const error = result.error
      // No such organisation: say so next to the short name (whether or not the API named the field).
      const reply =
        error.status === 404 && !error.problem?.errors
          ? submission.reply({ fieldErrors: { slug: [error.problem?.detail ?? 'There is no organisation with this short name.'] } })
          : replyWithApiError(submission, error)
      return data<ReportingActionData>({ intent, result: reply }, { status: failureStatus(error), headers: responseHeaders })
    }
    await setFlash(responseHeaders, { tone: 'success', message: `Request sent to ${result.data.organisationName}. Its administrators decide; you will get an e-mail.` })
    throw redirect('/join', { headers: responseHeaders })
  }
  throw data('Unknown intent', { status: 400 })
}

export default function Join({ loaderData, actionData }: Route.ComponentProps) {
  const { requests, requestsError, idempotencyKey } = loaderData
  const locale = useLocale()
  const reply = actionData as ReportingActionData | undefined
  return (
    <>
      <PageHeader title="Join" description="Got an invite code on site? Type it here. Or ask an organisation to let you join." />
      <div className="flex flex-col gap-10">
        <Section title="Invite code" description="8 letters and digits, like ABCD-EFGH. Upper or lower case, with or without the dash.">
          <CodeForm lastResult={resultFor(reply, 'code')} idempotencyKey={idempotencyKey} />
        </Section>
        <Section title="Ask to join an organisation" description="Its administrators see your request and decide. Ask them for the organisation’s short name.">
          <AskForm lastResult={resultFor(reply, 'ask')} idempotencyKey={idempotencyKey} />
        </Section>
        <Section title="Your requests">
          {requestsError ? (
            <Banner tone="warning" title="Your requests could not be loaded" correlationId={requestsError.correlationId}>
              {requestsError.message}
            </Banner>
          ) : (
            <JoinRequestsMine requests={requests} locale={locale} />
          )}
        </Section>
      </div>
    </>
  )
}

function CodeForm({ lastResult, idempotencyKey }: { lastResult: ReportingActionData['result']; idempotencyKey: string }) {
  const [form, fields] = useForm({
    id: 'join-code',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(InviteCodeSchema),
    shouldValidate: 'onSubmit',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: InviteCodeSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex max-w-md flex-col gap-4">
      <CsrfInput />
      <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="Invite code"
        inputProps={{
          ...getInputProps(fields.code, { type: 'text' }),
          autoComplete: 'off',
          autoCapitalize: 'characters',
          spellCheck: false,
          className: 'font-mono uppercase tracking-widest',
        }}
        errors={fields.code.errors}
      />
      <div>
        <SubmitButton intent="code" pendingLabel="Checking the code…">
          Use code
        </SubmitButton>
      </div>
    </Form>
  )
}

function AskForm({ lastResult, idempotencyKey }: { lastResult: ReportingActionData['result']; idempotencyKey: string }) {
  const [form, fields] = useForm({
    id: 'join-ask',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(JoinRequestFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: JoinRequestFormSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex max-w-md flex-col gap-4">
      <CsrfInput />
      <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="Organisation short name"
        help="As in its address, e.g. riverside-builders."
        inputProps={{ ...getInputProps(fields.slug, { type: 'text' }), autoComplete: 'off', spellCheck: false }}
        errors={fields.slug.errors}
      />
      <TextareaField
        label="Message (optional)"
        help="Who you are and why you need access."
        textareaProps={{ ...getTextareaProps(fields.message), rows: 3 }}
        errors={fields.message.errors}
      />
      <div>
        <SubmitButton intent="ask" pendingLabel="Sending the request…">
          Ask to join
        </SubmitButton>
      </div>
    </Form>
  )
}

export function meta() {
  return [{ title: 'Join · Site Portal' }]
}
