import type { EntityChanged } from '~/lib/realtime/events'

/**
 * Which realtime changes the review screens show (EntityChanged, docs/realtime.md): the change
 * log announces a review and every action on it as `Workflow` (docs/doc-control.md), and a
 * transmittal as `Transmittal`. An approval also changes its documents (`Document`).
 */

/** A review's page: that review, or a document of it (a new revision to resubmit with). */
export function workflowChanged(workflowId: string): (change: EntityChanged) => boolean {
  return (change) => (change.entityType === 'Workflow' && change.entityId === workflowId) || change.entityType === 'Document'
}

/** The list of reviews: any review of the organisation. */
export function workflowsChanged(change: EntityChanged): boolean {
  return change.entityType === 'Workflow'
}

/** The inbox: reviews (a task given or taken) and transmittals (one sent). */
export function inboxChanged(change: EntityChanged): boolean {
  return change.entityType === 'Workflow' || change.entityType === 'Transmittal'
}
