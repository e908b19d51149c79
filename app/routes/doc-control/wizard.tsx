import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { data, useActionData } from 'react-router'
import { isUuid } from '~/lib/schemas/uuid'
import { WizardStart } from '~/components/doc-control/wizard-start'
import { STEP_LABELS, WizardProgress } from '~/components/doc-control/wizard-steps'
import { resultFor } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/wizard'
import { draftAction, loadWizard, startDraft, type WizardActionData, type WizardScreen } from './wizard.server'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The wizard shows one step at a time: each draft step's script comes with the step (and hydrates
// after the rest of the screen, app/components/ui/deferred.tsx), not with every step's first load.
const loadWizardRecipientsStep = async () => (await import('~/components/doc-control/wizard-recipients-step')).WizardRecipientsStep
const WizardRecipientsStep = deferred(loadWizardRecipientsStep, import.meta.env.SSR ? await loadWizardRecipientsStep() : undefined)
const loadWizardReviewStep = async () => (await import('~/components/doc-control/wizard-review-step')).WizardReviewStep
const WizardReviewStep = deferred(loadWizardReviewStep, import.meta.env.SSR ? await loadWizardReviewStep() : undefined)
const loadWizardRevisionsStep = async () => (await import('~/components/doc-control/wizard-revisions-step')).WizardRevisionsStep
const WizardRevisionsStep = deferred(loadWizardRevisionsStep, import.meta.env.SSR ? await loadWizardRevisionsStep() : undefined)
const loadWizardMessageStep = async () => (await import('~/components/doc-control/wizard-message-step')).WizardMessageStep
const WizardMessageStep = deferred(loadWizardMessageStep, import.meta.env.SSR ? await loadWizardMessageStep() : undefined)
await partsBeforeNavigation(WizardRecipientsStep, WizardReviewStep, WizardRevisionsStep, WizardMessageStep)

/**
 * Issue documents (spec §2 /doc-control/wizard): choose revisions → recipients → purpose and
 * message → review → send, one step per page, kept on a draft transmittal in the server
 * (wizard.server.ts). Works the same with JavaScript off: every button is a form post.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const screen = await loadWizard(api, request, responseHeaders)
  return data(screen, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  if (formData.get('intent') === 'start') {
    const projectId = new URL(request.url).searchParams.get('projectId')
    if (!isUuid(projectId)) throw data('Choose a project first.', { status: 400 })
    return startDraft(api, projectId, formData, responseHeaders)
  }
  return draftAction(api, request, formData, responseHeaders)
}

export default function Wizard({ loaderData }: Route.ComponentProps) {
  const screen = loaderData as WizardScreen
  const actionData = useActionData<typeof action>() as WizardActionData | undefined
  const locale = useLocale()
  const notice = actionData?.notice ?? ('notice' in screen ? screen.notice : null)
  const draft = screen.kind === 'draft' ? screen.transmittal : null
  return (
    <>
      <PageHeader
        title="Issue documents"
        description={
          draft
            ? `Draft transmittal ${draft.number}. It is saved at every step: you can leave and come back to it.`
            : 'Send revisions to people and parties with a purpose, a message and a response date.'
        }
        actions={
          draft ? (
            <ConfirmDialog triggerLabel="Discard draft…" title={`Discard draft ${draft.number}?`} confirmLabel="Yes, discard draft" pendingLabel="Discarding…" intent="discard">
              What was chosen for it is thrown away. Nothing has been sent.
            </ConfirmDialog>
          ) : undefined
        }
      />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      {screen.kind === 'draft' ? (
        <DraftSteps screen={screen} actionData={actionData} locale={locale} />
      ) : (
        <>
          {screen.kind === 'start' && screen.projectId ? (
            <WizardStart
              projectId={screen.projectId}
              sets={screen.sets}
              setId={screen.setId}
              drafts={screen.drafts}
              locale={locale}
              errors={{ setId: errorsOf(actionData, 'start', 'setId') }}
            />
          ) : (
            <EmptyState heading={screen.projects.length > 0 ? 'Choose a project' : 'No projects yet'}>
              {screen.projects.length > 0 ? 'Documents are issued from one project at a time.' : 'Documents belong to a project. Once your organisation has one, choose it here.'}
            </EmptyState>
          )}
        </>
      )}
    </>
  )
}

function DraftSteps({ screen, actionData, locale }: { screen: Extract<WizardScreen, { kind: 'draft' }>; actionData: WizardActionData | undefined; locale: string }) {
  const { transmittal, step } = screen
  // What Next and Back save against: the draft as drawn, or as it is now after a conflict.
  const revision = actionData?.revision ?? transmittal.revision
  return (
    <>
      <WizardProgress step={step} />
      {step === 'revisions' && screen.picker ? (
        <WizardRevisionsStep
          revision={revision}
          revisions={transmittal.revisions}
          sets={screen.sets}
          picker={{ action: '/doc-control/wizard', hidden: { projectId: transmittal.projectId, transmittalId: transmittal.id }, ...screen.picker }}
          errors={{ pick: errorsOf(actionData, 'next', 'pick') ?? errorsOf(actionData, 'add-revisions', 'pick'), setId: errorsOf(actionData, 'add-set', 'setId') }}
        />
      ) : null}
      {step === 'recipients' ? (
        <Section title={STEP_LABELS.recipients} description="People, and parties: everyone in a party when it is sent.">
          <WizardRecipientsStep
            members={screen.members}
            parties={screen.parties}
            chosen={actionData?.chosen ?? chosenOf(transmittal)}
            revision={revision}
            errors={actionData?.intent === 'next' ? Object.values(actionData.result?.error ?? {}).flatMap((messages) => messages ?? []) : undefined}
          />
        </Section>
      ) : null}
      {step === 'message' ? (
        <Section title={STEP_LABELS.message}>
          <WizardMessageStep key={transmittal.updatedAt} transmittal={transmittal} revision={revision} lastResult={resultFor(actionData, 'next')} />
        </Section>
      ) : null}
      {step === 'review' ? <WizardReviewStep transmittal={transmittal} locale={locale} purposeWarnings={actionData?.intent === 'send' ? actionData.purposeWarnings : undefined} /> : null}
    </>
  )
}

/** The people chosen one by one, and the parties chosen (their people come with them). */
function chosenOf(transmittal: Extract<WizardScreen, { kind: 'draft' }>['transmittal']) {
  // A party with only outside contacts is chosen too (they are recipients by link).
  const partyIds = [...new Set([...transmittal.recipients, ...transmittal.outsideRecipients].flatMap((recipient) => (recipient.partyId ? [recipient.partyId] : [])))]
  const userIds = transmittal.recipients.filter((recipient) => !recipient.partyId).map((recipient) => recipient.userId)
  return { userIds, partyIds }
}

function errorsOf(actionData: WizardActionData | undefined, intent: string, field: string): string[] | undefined {
  const errors = resultFor(actionData, intent)?.error?.[field]
  return errors && errors.length > 0 ? errors : undefined
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  const screen = loaderData as WizardScreen | undefined
  return [{ title: screen?.kind === 'draft' ? `Issue documents · ${screen.transmittal.number} · Site Portal` : 'Issue documents · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
