import { and, asc, desc, eq, lt, or, sql } from 'drizzle-orm'
import { users } from '#server/db/schema'
import { projectParties, transmittalPackages, transmittalRecipients, transmittalRevisions, transmittals } from '#server/db/schema-doc-control'
import { documentRevisions, documents } from '#server/db/schema-documents'
import { projects } from '#server/db/schema-reporting'
import { recordAuditIn } from '#server/domain/audit'
import type { ServedBlob } from '#server/domain/uploads/served'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem } from '#server/http/problem'
import type { TransmittalPackage } from '~/lib/doc-control/types'
import { findTransmittal, packageView, readAccess, recordTransmittalChange, stateProblem, type PackageRow, type TransmittalRow } from './transmittal-views'

/**
 * Transmittal packages (docs/doc-control.md "Packaging"): a request queues a row; the packaging job
 * (server/jobs/transmittal-packaging.ts, on every instance) claims it, streams the ZIP into the blob
 * store and writes its progress as it goes; the caller polls the row and downloads the ZIP once
 * ready. This module is the rows' side: requests, the claim, progress, the outcome, and what a
 * download serves. The ZIP itself is ./packaging-zip.ts.
 */

/** A running job whose heartbeat is older than this lost its instance: another claims it and starts again. */
export const PACKAGE_STALE_MS = 60_000
/** How often a running job renews its heartbeat even when no file is finishing (a slow read). */
export const PACKAGE_HEARTBEAT_MS = 15_000
/** Progress is written after every file and every this many bytes. */
export const PACKAGE_PROGRESS_BYTES = 8 * 1024 * 1024
/** A package interrupted this many times (its instance died each time) fails rather than being claimed again. */
export const PACKAGE_MAX_ATTEMPTS = 5

/**
 * `{tenantId}/transmittals/{transmittalId}/package-{packageId}-{attempt}.{sha256}`: ends in its hash, like revisions' keys; the
 * attempt keeps a late writer of an earlier attempt (an instance thought dead) from replacing or deleting the package served.
 */
export function packageKey(tenantId: string, transmittalId: string, packageId: string, attempt: number, sha256: string): string {
  return `${tenantId}/transmittals/${transmittalId}/package-${packageId}-${attempt}.${sha256}`
}

/** Where a job writes before it knows the hash; one name per attempt, so a late writer of an earlier attempt never meets it. */
export function packageWorkKey(tenantId: string, transmittalId: string, packageId: string, attempt: number): string {
  return `${tenantId}/transmittals/${transmittalId}/package-${packageId}.attempt-${attempt}`
}

function shaOf(key: string): string {
  return key.slice(key.lastIndexOf('.') + 1)
}

async function latestPackage(ctx: DomainContext, transmittalId: string): Promise<PackageRow | undefined> {
  const [row] = await ctx.tx
    .select()
    .from(transmittalPackages)
    .where(and(eq(transmittalPackages.tenantId, ctx.actor.tenantId), eq(transmittalPackages.transmittalId, transmittalId)))
    .orderBy(desc(transmittalPackages.startedAt), desc(transmittalPackages.id))
    .limit(1)
  return row
}

/**
 * POST …/package: whoever may read a sent transmittal may have it packaged (a recipient needs the
 * ZIP as much as the sender). A queued, running or ready package is answered as it is; a failed
 * one is queued again (its attempts kept); otherwise a new one is queued. `created` tells the
 * caller to wake the job.
 */
export async function requestPackage(ctx: DomainContext, transmittalId: string): Promise<{ pkg: TransmittalPackage; created: boolean }> {
  const row = await findTransmittal(ctx, transmittalId, { lock: true })
  await readAccess(ctx, row)
  return queuePackage(ctx, row, ctx.actor.userId)
}

/** Queues a package of a sent transmittal the caller may read (a member, or an outside contact's link: `requestedBy` null). */
export async function queuePackage(ctx: DomainContext, row: TransmittalRow, requestedBy: string | null): Promise<{ pkg: TransmittalPackage; created: boolean }> {
  if (row.status === 'draft') throw stateProblem(row, 'A transmittal is packaged once it is sent: send it first.')
  const latest = await latestPackage(ctx, row.id)
  if (latest && latest.status !== 'failed') return { pkg: packageView(latest), created: false }
  const [totals] = await ctx.tx
    .select({ files: sql<number>`count(*)::int`, bytes: sql<string>`coalesce(sum(${documentRevisions.sizeBytes}), 0)::bigint` })
    .from(transmittalRevisions)
    .innerJoin(documentRevisions, and(eq(documentRevisions.tenantId, transmittalRevisions.tenantId), eq(documentRevisions.id, transmittalRevisions.revisionId)))
    .where(and(eq(transmittalRevisions.tenantId, ctx.actor.tenantId), eq(transmittalRevisions.transmittalId, row.id)))
  const fresh = {
    status: 'queued',
    filesTotal: Number(totals?.files ?? 0),
    filesDone: 0,
    bytesTotal: Number(totals?.bytes ?? 0),
    bytesDone: 0,
    blobKey: null,
    sizeBytes: null,
    error: null,
    heartbeatAt: null,
    requestedBy,
    startedAt: ctx.now,
    finishedAt: null,
  }
  const [pkg] = latest
    ? await ctx.tx
        .update(transmittalPackages)
        .set(fresh)
        .where(and(eq(transmittalPackages.tenantId, ctx.actor.tenantId), eq(transmittalPackages.id, latest.id)))
        .returning()
    : await ctx.tx
        .insert(transmittalPackages)
        .values({ tenantId: ctx.actor.tenantId, transmittalId: row.id, ...fresh })
        .returning()
  if (!pkg) throw new Error('package not queued')
  await recordTransmittalChange(ctx, row.id, 'Updated', 'doc-control.transmittal.packaged', { event: 'requested', packageId: pkg.id, retry: latest !== undefined })
  return { pkg: packageView(pkg), created: true }
}

function notStarted(): Problem {
  return new Problem({
    status: 404,
    title: 'Not found',
    detail: 'This transmittal has not been packaged yet: start packaging first.',
    code: 'KR_PACKAGE_NOT_STARTED',
    remediation: 'POST /api/transmittals/{transmittalId}/package',
  })
}

/** GET …/package: the latest package, for polling. */
export async function getPackage(ctx: DomainContext, transmittalId: string): Promise<TransmittalPackage> {
  const row = await findTransmittal(ctx, transmittalId)
  await readAccess(ctx, row)
  const pkg = await latestPackage(ctx, row.id)
  if (!pkg) throw notStarted()
  return packageView(pkg)
}

/**
 * What GET …/package/download serves, once ready (409 before). A recipient's download is counted
 * (and opens the transmittal for them) when `count` says the request starts at the first byte:
 * a client resuming with a later range is the same download.
 */
export async function packageDownload(ctx: DomainContext, transmittalId: string, count: boolean): Promise<ServedBlob & { disposition: 'attachment' }> {
  const row = await findTransmittal(ctx, transmittalId, { lock: count })
  const access = await readAccess(ctx, row)
  const blob = await readyPackage(ctx, row)
  if (count && access.recipient) await recordDownload(ctx, row, access.recipient.id, access.recipient.status)
  return blob
}

/** The ready package of a transmittal as a download serves it: 404 before any, 409 while not ready. */
export async function readyPackage(ctx: DomainContext, row: TransmittalRow): Promise<ServedBlob & { disposition: 'attachment' }> {
  const pkg = await latestPackage(ctx, row.id)
  if (!pkg) throw notStarted()
  if (pkg.status !== 'ready' || !pkg.blobKey) {
    throw new Problem({
      status: 409,
      title: 'Conflict',
      detail: pkg.status === 'failed' ? `Packaging failed: ${pkg.error ?? 'unknown error'}. Start it again.` : 'The package is not ready yet: poll its status until it is.',
      code: 'KR_PACKAGE_NOT_READY',
      extensions: { packageStatus: pkg.status },
    })
  }
  return { key: pkg.blobKey, contentType: 'application/zip', sha256: shaOf(pkg.blobKey), fileName: `${row.number}.zip`, disposition: 'attachment' }
}

async function recordDownload(ctx: DomainContext, row: TransmittalRow, recipientId: string, status: string): Promise<void> {
  await ctx.tx
    .update(transmittalRecipients)
    .set({
      downloads: sql`${transmittalRecipients.downloads} + 1`,
      downloadedAt: sql`coalesce(${transmittalRecipients.downloadedAt}, ${ctx.now.toISOString()}::timestamptz)`,
      openedAt: sql`coalesce(${transmittalRecipients.openedAt}, ${ctx.now.toISOString()}::timestamptz)`,
      ...(status === 'sent' && { status: 'opened' }),
    })
    .where(and(eq(transmittalRecipients.tenantId, ctx.actor.tenantId), eq(transmittalRecipients.id, recipientId)))
  const revision = await recordTransmittalChange(ctx, row.id, 'Updated', 'doc-control.transmittal.received', { event: 'downloaded' })
  await ctx.tx
    .update(transmittals)
    .set({ revision })
    .where(and(eq(transmittals.tenantId, ctx.actor.tenantId), eq(transmittals.id, row.id)))
}

// ---- The job's side: one tenant's transactions, as the system ----

export type Claim = { tenantId: string; packageId: string; transmittalId: string; attempt: number; requestedBy: string | null }

/**
 * Claims the tenant's oldest queued package, or a running one whose heartbeat stopped before
 * `staleBefore`, with FOR UPDATE SKIP LOCKED (two instances never take the same row), and marks it
 * running from the first file with a new attempt number. A package interrupted too often fails.
 */
export async function claimPackage(ctx: DomainContext, staleBefore: Date): Promise<Claim | undefined> {
  for (;;) {
    const [candidate] = await ctx.tx
      .select({ id: transmittalPackages.id, transmittalId: transmittalPackages.transmittalId, status: transmittalPackages.status, attempts: transmittalPackages.attempts })
      .from(transmittalPackages)
      .where(
        and(
          eq(transmittalPackages.tenantId, ctx.actor.tenantId),
          or(eq(transmittalPackages.status, 'queued'), and(eq(transmittalPackages.status, 'running'), lt(transmittalPackages.heartbeatAt, staleBefore))),
        ),
      )
      .orderBy(asc(transmittalPackages.startedAt))
      .limit(1)
      .for('update', { skipLocked: true })
    if (!candidate) return undefined
    const where = and(eq(transmittalPackages.tenantId, ctx.actor.tenantId), eq(transmittalPackages.id, candidate.id))
    if (candidate.status === 'running' && candidate.attempts >= PACKAGE_MAX_ATTEMPTS) {
      await ctx.tx
        .update(transmittalPackages)
        .set({ status: 'failed', error: `Packaging was interrupted ${candidate.attempts} times; start it again.`, finishedAt: ctx.now })
        .where(where)
      continue
    }
    const [claimed] = await ctx.tx
      .update(transmittalPackages)
      .set({ status: 'running', attempts: candidate.attempts + 1, heartbeatAt: ctx.now, filesDone: 0, bytesDone: 0, error: null, blobKey: null, sizeBytes: null, finishedAt: null })
      .where(where)
      .returning({ attempts: transmittalPackages.attempts, requestedBy: transmittalPackages.requestedBy })
    if (!claimed) return undefined
    return { tenantId: ctx.actor.tenantId, packageId: candidate.id, transmittalId: candidate.transmittalId, attempt: claimed.attempts, requestedBy: claimed.requestedBy }
  }
}

function owned(ctx: DomainContext, claim: Claim) {
  return and(
    eq(transmittalPackages.tenantId, ctx.actor.tenantId),
    eq(transmittalPackages.id, claim.packageId),
    eq(transmittalPackages.attempts, claim.attempt),
    eq(transmittalPackages.status, 'running'),
  )
}

/** Writes progress and renews the heartbeat; false when the claim was lost (another instance took the package over). */
export async function reportProgress(ctx: DomainContext, claim: Claim, progress?: { filesDone: number; bytesDone: number }): Promise<boolean> {
  const rows = await ctx.tx
    .update(transmittalPackages)
    .set({ heartbeatAt: ctx.now, ...progress })
    .where(owned(ctx, claim))
    .returning({ id: transmittalPackages.id })
  return rows.length > 0
}

async function recordOutcome(ctx: DomainContext, claim: Claim, data: Record<string, unknown>): Promise<void> {
  const revision = await recordChange(ctx, 'Transmittal', claim.transmittalId, 'Updated')
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: claim.requestedBy ?? undefined,
    action: 'doc-control.transmittal.packaged',
    targetType: 'Transmittal',
    targetId: claim.transmittalId,
    data: { packageId: claim.packageId, attempt: claim.attempt, ...data },
    at: ctx.now,
  })
  await ctx.tx
    .update(transmittals)
    .set({ revision })
    .where(and(eq(transmittals.tenantId, ctx.actor.tenantId), eq(transmittals.id, claim.transmittalId)))
}

/** The package is in place: ready, with its key and size. False when the claim was lost meanwhile (the caller deletes its blob). */
export async function finishPackage(ctx: DomainContext, claim: Claim, stored: { key: string; size: number; filesDone: number; bytesDone: number }): Promise<boolean> {
  const rows = await ctx.tx
    .update(transmittalPackages)
    .set({ status: 'ready', blobKey: stored.key, sizeBytes: stored.size, filesDone: stored.filesDone, bytesDone: stored.bytesDone, heartbeatAt: ctx.now, finishedAt: ctx.now })
    .where(owned(ctx, claim))
    .returning({ id: transmittalPackages.id })
  if (rows.length === 0) return false
  await recordOutcome(ctx, claim, { event: 'ready', sizeBytes: stored.size })
  return true
}

export async function failPackage(ctx: DomainContext, claim: Claim, error: string): Promise<boolean> {
  const rows = await ctx.tx
    .update(transmittalPackages)
    .set({ status: 'failed', error, heartbeatAt: ctx.now, finishedAt: ctx.now })
    .where(owned(ctx, claim))
    .returning({ id: transmittalPackages.id })
  if (rows.length === 0) return false
  await recordOutcome(ctx, claim, { event: 'failed', error })
  return true
}

/** An instance stopping hands its package back: queued again, so the next instance to look starts it at once. */
export async function releasePackage(ctx: DomainContext, claim: Claim): Promise<void> {
  await ctx.tx.update(transmittalPackages).set({ status: 'queued', filesDone: 0, bytesDone: 0, heartbeatAt: null }).where(owned(ctx, claim))
}

export type PackageFile = { label: string; entryName: string; blobKey: string; sizeBytes: number; sha256: string; modifiedAt: Date }

export type PackageContents = {
  number: string
  subject: string
  purpose: string
  message: string
  responseDueDate: string | null
  sentAt: Date | null
  sentBy: string | null
  project: { title: string | null; code: string | null }
  recipients: Array<{ displayName: string; email: string; party: string | null }>
  revisions: Array<{ number: string; title: string; code: string; status: string; fileName: string } & PackageFile>
}

/** Everything the ZIP holds and its cover sheet lists, read once at the start of an attempt. */
export async function packageContents(ctx: DomainContext, claim: Claim): Promise<PackageContents | undefined> {
  return transmittalContents(ctx, claim.transmittalId)
}

/** What a transmittal's cover sheet lists (the caller checks that the reader may read it). */
export async function transmittalContents(ctx: DomainContext, transmittalId: string): Promise<PackageContents | undefined> {
  const tenantId = ctx.actor.tenantId
  const [row] = await ctx.tx
    .select({ transmittal: transmittals, projectTitle: projects.title, projectCode: projects.code, sentBy: users.displayName })
    .from(transmittals)
    .innerJoin(projects, and(eq(projects.tenantId, transmittals.tenantId), eq(projects.id, transmittals.projectId)))
    .leftJoin(users, eq(users.id, transmittals.sentBy))
    .where(and(eq(transmittals.tenantId, tenantId), eq(transmittals.id, transmittalId)))
    .limit(1)
  if (!row) return undefined
  const t = row.transmittal
  const recipients = await ctx.tx
    .select({ displayName: users.displayName, email: users.email, party: projectParties.name })
    .from(transmittalRecipients)
    .innerJoin(users, eq(users.id, transmittalRecipients.userId))
    .leftJoin(projectParties, and(eq(projectParties.tenantId, transmittalRecipients.tenantId), eq(projectParties.id, transmittalRecipients.partyId)))
    .where(and(eq(transmittalRecipients.tenantId, tenantId), eq(transmittalRecipients.transmittalId, t.id)))
    .orderBy(asc(users.displayName))
  const revisions = await ctx.tx
    .select({
      number: documents.number,
      title: documents.title,
      code: documentRevisions.code,
      status: documentRevisions.status,
      fileName: documentRevisions.fileName,
      blobKey: documentRevisions.blobKey,
      sizeBytes: documentRevisions.sizeBytes,
      sha256: documentRevisions.sha256,
      modifiedAt: documentRevisions.createdAt,
    })
    .from(transmittalRevisions)
    .innerJoin(documentRevisions, and(eq(documentRevisions.tenantId, transmittalRevisions.tenantId), eq(documentRevisions.id, transmittalRevisions.revisionId)))
    .innerJoin(documents, and(eq(documents.tenantId, documentRevisions.tenantId), eq(documents.id, documentRevisions.documentId)))
    .where(and(eq(transmittalRevisions.tenantId, tenantId), eq(transmittalRevisions.transmittalId, t.id)))
    .orderBy(asc(transmittalRevisions.position))
  const names = new Set<string>()
  return {
    number: t.number,
    subject: t.subject,
    purpose: t.purpose,
    message: t.message,
    responseDueDate: t.responseDueDate,
    sentAt: t.sentAt,
    sentBy: row.sentBy,
    project: { title: row.projectTitle, code: row.projectCode },
    recipients,
    revisions: revisions.map((r) => ({ ...r, label: `${r.number} ${r.code}`, entryName: entryName(names, r.number, r.code, r.fileName) })),
  }
}

/** `{document number}_{revision}{extension of the file}`: unique in the ZIP, safe on every file system. */
function entryName(taken: Set<string>, number: string, code: string, fileName: string): string {
  const extension = /\.([A-Za-z0-9]{1,10})$/.exec(fileName)?.[1]
  const base = `${number}_${code}`.replace(/[^A-Za-z0-9._-]+/g, '_')
  let name = `${base}${extension ? `.${extension.toLowerCase()}` : ''}`
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}-${n}${extension ? `.${extension.toLowerCase()}` : ''}`
  taken.add(name.toLowerCase())
  return name
}
