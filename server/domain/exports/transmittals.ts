import type { Database } from '#server/db/client'
import { listTransmittals, type TransmittalQuery } from '#server/domain/doc-control/transmittals'
import { requireProjectRow } from '#server/domain/reporting/projects'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { projectTitle } from '~/lib/reporting/types'
import type { Transmittal, TransmittalRecipient } from '~/lib/doc-control/types'
import { PAGE_MAX, PAGE_SIZE_MAX, PURPOSE_LABELS } from '~/lib/schemas/sets'
import type { ExportColumn } from '#server/domain/formats/columns'

/**
 * A project's transmittals as rows (docs/exports.md): the transmittals screen's call
 * (listTransmittals: only what the caller may read), one row per recipient, so who it was sent to
 * and when each acknowledged it read across; a transmittal nobody received yet is one row.
 */

export type TransmittalRow = { transmittal: Transmittal; recipient: TransmittalRecipient | null }

/** Which transmittals: a project's, those of one status or all (the screen's filter). */
export type TransmittalsQuery = { projectId: string } & Omit<TransmittalQuery, 'page' | 'pageSize'>

type Session = { tenantId: string; userId: string }

/** How many transmittals the caller may read; another organisation's project, or one the caller cannot reach, is a 404 before anything is written. */
export async function checkTransmittals(ctx: DomainContext, query: TransmittalsQuery): Promise<number> {
  const { projectId, ...filter } = query
  return (await listTransmittals(ctx, projectId, { ...filter, page: 1, pageSize: 1 })).total
}

/** The transmittals' selection in words, for a job's title ("Project: Tower · Status: sent"). */
export async function transmittalsWords(ctx: DomainContext, query: TransmittalsQuery): Promise<string[]> {
  const words = [`Project: ${projectTitle((await requireProjectRow(ctx, query.projectId)).title)}`]
  if (query.status) words.push(`Status: ${query.status}`)
  return words
}

/** How many transmittals a batch of rows covers (a transmittal's recipients are rows of one batch). */
export function transmittalsIn(batch: TransmittalRow[]): number {
  return new Set(batch.map((row) => row.transmittal.id)).size
}

export async function* transmittalRows(db: Database, session: Session, now: () => Date, { projectId, ...query }: TransmittalsQuery): AsyncGenerator<TransmittalRow[]> {
  for (let page = 1; page <= PAGE_MAX; page++) {
    const result = await asMember(db, session, now(), (ctx) => listTransmittals(ctx, projectId, { ...query, page, pageSize: PAGE_SIZE_MAX }))
    const rows = result.items.flatMap((transmittal): TransmittalRow[] =>
      transmittal.recipients.length === 0 ? [{ transmittal, recipient: null }] : transmittal.recipients.map((recipient) => ({ transmittal, recipient })),
    )
    if (rows.length > 0) yield rows
    if (result.items.length < PAGE_SIZE_MAX) return
  }
}

export function transmittalColumns(publicUrl: string): ExportColumn<TransmittalRow>[] {
  return [
    { header: 'Number', width: 20, value: (r) => r.transmittal.number },
    { header: 'Subject', width: 36, value: (r) => r.transmittal.subject },
    { header: 'Purpose', width: 18, value: (r) => PURPOSE_LABELS[r.transmittal.purpose] },
    { header: 'Status', width: 12, value: (r) => r.transmittal.status },
    { header: 'Sent (UTC)', width: 22, value: (r) => r.transmittal.sentAt ?? '' },
    { header: 'Sent by', width: 22, value: (r) => r.transmittal.sentBy?.displayName ?? '' },
    { header: 'Response due', width: 12, value: (r) => r.transmittal.responseDueDate ?? '' },
    { header: 'Documents', width: 10, value: (r) => r.transmittal.revisions.length },
    { header: 'To', width: 22, value: (r) => r.recipient?.displayName ?? '' },
    { header: 'To (e-mail)', width: 28, value: (r) => r.recipient?.email ?? '' },
    { header: 'Recipient status', width: 16, value: (r) => r.recipient?.status ?? '' },
    { header: 'Opened (UTC)', width: 22, value: (r) => r.recipient?.openedAt ?? '' },
    { header: 'Downloaded (UTC)', width: 22, value: (r) => r.recipient?.downloadedAt ?? '' },
    { header: 'Acknowledged (UTC)', width: 22, value: (r) => r.recipient?.acknowledgedAt ?? '' },
    { header: 'Responded (UTC)', width: 22, value: (r) => r.recipient?.respondedAt ?? '' },
    { header: 'Response', width: 36, value: (r) => r.recipient?.response ?? '' },
    { header: 'Link', width: 40, value: (r) => `${publicUrl.replace(/\/$/, '')}/doc-control/transmittals/${r.transmittal.id}` },
  ]
}
