import { and, eq, sql } from 'drizzle-orm'
import { listRevisions } from '#server/db/schema-reporting'
import { Problem } from '#server/http/problem'
import { ERROR_CODES } from '~/lib/constants'
import type { DomainContext } from './context'
import { userRefs } from './user-refs'

/**
 * Lost updates (issue 36 §4): the one convention of every PUT/PATCH on a record several people
 * edit, as items started it. The body carries `expectedRevision`, the record's `revision` when the
 * editor opened it; when someone saved since, nothing is saved and the answer is 409
 * KR_EDIT_CONFLICT with the record as it is now (`current`, `currentRevision`), the revision the
 * editor had (`yourRevision`) and who saved last (`changedBy`, null when unknown). Without
 * `expectedRevision` the write goes through (old clients, scripts): screens always send it.
 */
export async function refuseStaleWrite<T>(
  ctx: DomainContext,
  record: { revision: number; updatedBy: string | null; what: string },
  expectedRevision: number | undefined,
  current: () => Promise<T>,
): Promise<void> {
  if (expectedRevision === undefined || expectedRevision === record.revision) return
  const refs = await userRefs(ctx, [record.updatedBy])
  const changedBy = record.updatedBy ? (refs.get(record.updatedBy)?.displayName ?? null) : null
  throw editConflict(record.what, { changedBy, current: await current(), currentRevision: record.revision, yourRevision: expectedRevision })
}

export function editConflict(what: string, facts: { changedBy: string | null; current: unknown; currentRevision: number; yourRevision: number }): Problem {
  return new Problem({
    status: 409,
    title: 'Changed by someone else',
    detail: `${changedSentence(facts.changedBy)} Nothing was saved: your changes are still in the form. Check the ${what} as it is now and save again.`,
    code: ERROR_CODES.editConflict,
    remediation: `Read the ${what} again and send its new revision as expectedRevision.`,
    extensions: facts,
  })
}

/** The screens' words: "Changed by Ann Lee since you opened it." */
export function changedSentence(changedBy: string | null): string {
  return `Changed by ${changedBy ?? 'someone else'} since you opened it.`
}

/** A list saved as a whole without a row of its own (the `list_revisions` table names them). */
export type ListSubject =
  | 'matrix'
  | 'metadata-fields'
  | 'permissions'
  | 'item-pin'
  | 'organisation-switches'
  | 'drawings-overlay'
  /** The organisation's packages (subject id: the organisation's). */
  | 'packages'
  /** A project's own package settings. */
  | 'project-packages'
  /** The site settings: the organisation's name, short name, logo, locale, time zone and working days (subject id: the organisation's). */
  | 'site'

/**
 * The revision of such a list and who saved it last (revision 0, nobody, before its first save),
 * row-locked when `lock` so that two saves of one list take turns.
 */
export async function listRevision(ctx: DomainContext, subject: ListSubject, subjectId: string, options: { lock?: boolean } = {}): Promise<{ revision: number; updatedBy: string | null }> {
  // A first save locks a row too: the row is made (revision 0) before it is read.
  if (options.lock) await ctx.tx.insert(listRevisions).values({ tenantId: ctx.actor.tenantId, subject, subjectId, revision: 0, updatedAt: ctx.now }).onConflictDoNothing()
  const where = and(eq(listRevisions.tenantId, ctx.actor.tenantId), eq(listRevisions.subject, subject), eq(listRevisions.subjectId, subjectId))
  const query = ctx.tx.select({ revision: listRevisions.revision, updatedBy: listRevisions.updatedBy }).from(listRevisions).where(where).limit(1)
  const [row] = options.lock ? await query.for('update') : await query
  return row ?? { revision: 0, updatedBy: null }
}

/** A save of the list: its revision goes one up and names the actor; answers the new revision. */
export async function bumpListRevision(ctx: DomainContext, subject: ListSubject, subjectId: string): Promise<number> {
  const [row] = await ctx.tx
    .insert(listRevisions)
    .values({ tenantId: ctx.actor.tenantId, subject, subjectId, revision: 1, updatedBy: ctx.actor.userId, updatedAt: ctx.now })
    .onConflictDoUpdate({
      target: [listRevisions.tenantId, listRevisions.subject, listRevisions.subjectId],
      set: { revision: sql`${listRevisions.revision} + 1`, updatedBy: ctx.actor.userId, updatedAt: ctx.now },
    })
    .returning({ revision: listRevisions.revision })
  if (!row) throw new Error('list revision not stored')
  return row.revision
}
