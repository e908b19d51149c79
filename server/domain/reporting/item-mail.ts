import { and, eq, inArray } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { memberships, users } from '#server/db/schema'
import { projects } from '#server/db/schema-reporting'
import { effectiveGeneralConfig } from '#server/domain/config/effective'
import { enqueueMail } from '#server/domain/mail'
import { type MailTemplateKey, type MailVariables } from '#server/mail/templates/types'
import { notifyFrom } from '#server/domain/notifications/notifications'
import { wantsMail, type NotificationEvent } from '#server/domain/settings/notification-preferences'
import type { DomainContext } from '../tenancy/context'
import type { ItemRow } from './item-view'

/**
 * The mails about items (docs/settings-appearance-notifications.md "Item mails"): assigned,
 * response, close requested. Each goes through the outbox in the transaction that made the change
 * (rolled back with it), to active members only, never to whoever did it, and only to those whose
 * notification preferences want it. Assigned and close requested are also in-app notifications
 * (the bell), decided by the in-app choices of the same preferences.
 */

/** The site's own address, the fallback when the organisation set no public URL (Configuration › General). */
export type MailLinks = { publicUrl: string }

/** A response's excerpt in the mail: the start of it, on one line. */
export const RESPONSE_EXCERPT_MAX = 280

const UNTITLED_PROJECT = 'Untitled Project'

type Person = { id: string; email: string; displayName: string; roleKey: string }

/** The organisation's public URL (Configuration › General), else the site's. */
export async function publicBase(db: Database, tenantId: string, links: MailLinks): Promise<string> {
  const general = await effectiveGeneralConfig(db, tenantId)
  return (general.values.publicUrl || links.publicUrl).replace(/\/+$/, '')
}

/** The active members among these ids, with their e-mail address and role. */
async function activeMembers(ctx: DomainContext, ids: readonly (string | null)[]): Promise<Person[]> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null && id !== ctx.actor.userId))]
  if (wanted.length === 0) return []
  return ctx.tx
    .select({ id: users.id, email: users.email, displayName: users.displayName, roleKey: memberships.roleKey })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, ctx.actor.tenantId), inArray(memberships.userId, wanted), eq(memberships.status, 'active'), eq(users.status, 'active')))
}

async function itemVariables(ctx: DomainContext, item: ItemRow, links: MailLinks) {
  const [project] = await ctx.tx
    .select({ title: projects.title })
    .from(projects)
    .where(and(eq(projects.tenantId, ctx.actor.tenantId), eq(projects.id, item.projectId)))
    .limit(1)
  const base = await publicBase(ctx.tx as unknown as Database, ctx.actor.tenantId, links)
  return { itemTitle: item.title, itemUrl: `${base}/items/${item.id}`, projectName: project?.title || UNTITLED_PROJECT }
}

async function actorName(ctx: DomainContext): Promise<string> {
  const [row] = await ctx.tx.select({ displayName: users.displayName }).from(users).where(eq(users.id, ctx.actor.userId)).limit(1)
  return row?.displayName ?? 'Someone'
}

async function send(ctx: DomainContext, people: Person[], event: NotificationEvent, template: MailTemplateKey, variables: MailVariables): Promise<void> {
  const db = ctx.tx as unknown as Database
  for (const person of people) {
    if (!(await wantsMail(db, ctx.actor.tenantId, person.id, event))) continue
    await enqueueMail(db, { tenantId: ctx.actor.tenantId, to: person.email, template, variables })
  }
}

/** `item-assigned`: the new assignee of an item (on creation or a change of assignee). */
export async function mailItemAssigned(ctx: DomainContext, item: ItemRow, links: MailLinks): Promise<void> {
  const people = await activeMembers(ctx, [item.assigneeUserId])
  if (people.length === 0) return
  await notifyFrom(
    ctx,
    people.map((person) => person.id),
    { kind: 'item-assigned', title: `Item assigned to you: ${item.title}`, link: `/items/${item.id}` },
  )
  await send(ctx, people, 'assigned', 'item-assigned', {
    ...(await itemVariables(ctx, item, links)),
    assignedBy: await actorName(ctx),
    dueDate: item.dueDate ?? '',
  })
}

/** `item-response`: the item's assignee and its creator, about a response someone else wrote (`except` had a mail about it already). */
export async function mailItemResponse(ctx: DomainContext, item: ItemRow, body: string, links: MailLinks, except: readonly string[] = []): Promise<void> {
  const people = (await activeMembers(ctx, [item.assigneeUserId, item.createdBy])).filter((person) => !except.includes(person.id))
  if (people.length === 0) return
  const excerpt = body.replace(/\s+/g, ' ').trim()
  await send(ctx, people, 'response', 'item-response', {
    ...(await itemVariables(ctx, item, links)),
    responderName: await actorName(ctx),
    responseExcerpt: excerpt.length > RESPONSE_EXCERPT_MAX ? `${excerpt.slice(0, RESPONSE_EXCERPT_MAX - 1)}…` : excerpt,
  })
}

/**
 * `item-close-requested`: whoever confirms the close (server/domain/reporting/permissions.ts,
 * 'item.verify'): the item's creator while they are an active member who may still verify it;
 * otherwise the organisation's administrators, who always may. A creator who asked for the close
 * themselves confirms it themselves: nobody is mailed. Answers who was asked.
 */
export async function mailItemCloseRequested(ctx: DomainContext, item: ItemRow, links: MailLinks): Promise<string[]> {
  if (item.createdBy === ctx.actor.userId) return []
  const [creator] = await activeMembers(ctx, [item.createdBy])
  let people: Person[] = creator && (creator.roleKey === 'admin' || creator.roleKey === 'read-write') ? [creator] : []
  if (people.length === 0) {
    const admins = await ctx.tx
      .select({ id: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.roleKey, 'admin'), eq(memberships.status, 'active')))
    people = await activeMembers(
      ctx,
      admins.map((a) => a.id),
    )
  }
  if (people.length === 0) return []
  await notifyFrom(
    ctx,
    people.map((person) => person.id),
    { kind: 'close-requested', title: `Close requested: ${item.title}`, link: `/items/${item.id}` },
  )
  await send(ctx, people, 'closeRequested', 'item-close-requested', {
    ...(await itemVariables(ctx, item, links)),
    requestedBy: await actorName(ctx),
  })
  return people.map((person) => person.id)
}
