import { Problem, type FieldErrors } from '#server/http/problem'
import type { WorkflowAction, WorkflowStatus } from '~/lib/doc-control/types'

/** The refusals of templates and workflows (docs/doc-control.md), so the same case reads the same everywhere. */

/** What the domain checks beyond the body's shape (a member that does not exist, a step nobody reviews): 422 with field errors. */
export function unprocessable(detail: string, errors?: FieldErrors): Problem {
  return new Problem({
    status: 422,
    title: 'Unprocessable Content',
    detail,
    code: 'KR_VALIDATION',
    remediation: errors ? 'Correct the fields listed in errors and send the request again.' : undefined,
    errors,
  })
}

export function onlyAdmins(detail: string): Problem {
  return new Problem({ status: 403, title: 'Forbidden', detail, code: 'KR_FORBIDDEN' })
}

export function readOnlyRefused(): Problem {
  return new Problem({ status: 403, title: 'Forbidden', detail: 'Read-only members can read reviews but not take part in them.', code: 'KR_FORBIDDEN' })
}

export function notYours(detail: string): Problem {
  return new Problem({ status: 403, title: 'Forbidden', detail, code: 'KR_FORBIDDEN' })
}

export function templateNameTaken(name: string): Problem {
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: `There is already a workflow template called “${name}”.`,
    code: 'KR_TEMPLATE_NAME_TAKEN',
    errors: { name: [`There is already a workflow template called “${name}”.`] },
  })
}

export function templateArchived(): Problem {
  return new Problem({ status: 409, title: 'Conflict', detail: 'This workflow template is archived: it starts no new review and takes no new version.', code: 'KR_ARCHIVED' })
}

/** An action the workflow's state does not take: 409 with the actions the caller may take now (an extra member, RFC 9457 §3.2). */
export function wrongState(action: WorkflowAction, status: WorkflowStatus, allowed: WorkflowAction[]): Problem {
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: `This review is ${status}: it cannot take “${action}” now.`,
    code: 'KR_WORKFLOW_STATE',
    remediation: allowed.length > 0 ? `What you may do now: ${allowed.join(', ')}.` : 'Nothing more can be done with this review.',
    extensions: { allowed, status },
  })
}

