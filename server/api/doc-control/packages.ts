import { Hono, type Context } from 'hono'
import { getPackage, packageDownload, requestPackage } from '#server/domain/doc-control/packaging'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { TransmittalPackageSchema } from '~/lib/schemas/doc-control-responses'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { nudgePackaging } from '#server/jobs/transmittal-packaging'
import { serveBlob } from '../photos/serve-blob'

/**
 * docs/doc-control.md "Packaging": start (202, the job picks it up), poll, and download the ZIP
 * with Range (the one blob server of photos and revisions), counted per recipient.
 */

function run<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

const TAG = 'Transmittals'

/** A new download, not a client resuming one (a later range) or revalidating what it holds. */
function startsADownload(c: Context<BackendEnv>): boolean {
  if (c.req.method !== 'GET' || c.req.header('if-none-match') !== undefined) return false
  const range = c.req.header('range')
  return range === undefined || /^bytes=0-/.test(range.trim())
}

export const transmittalPackageRoutes = new Hono<BackendEnv>()
  .post(
    '/api/transmittals/:transmittalId/package',
    operation({
      summary: 'Start packaging a sent transmittal into a ZIP (a background job)',
      description: 'An existing queued, running or ready package is answered as it is; a failed one is queued again.',
      tag: TAG,
      access: 'session',
      idempotent: true,
      responses: { 202: { description: 'The package, queued (or as it is): poll GET …/package.', schema: TransmittalPackageSchema }, 404: 'No such transmittal.', 409: 'A draft (KR_TRANSMITTAL_STATE).' },
    }),
    idempotent,
    async (c) => {
      const { pkg, created } = await run(c, (ctx) => requestPackage(ctx, c.req.param('transmittalId')))
      if (created) nudgePackaging(requireSession(c).tenantId)
      c.header('location', `/api/transmittals/${c.req.param('transmittalId')}/package`)
      return c.json(pkg, 202)
    },
  )
  .get(
    '/api/transmittals/:transmittalId/package',
    operation({
      summary: 'A transmittal’s package: progress (percent, files, bytes), then its download link',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'The package.', schema: TransmittalPackageSchema }, 404: 'No such transmittal, or not packaged yet (KR_PACKAGE_NOT_STARTED).' },
    }),
    async (c) => {
      c.header('cache-control', 'no-store')
      return c.json(await run(c, (ctx) => getPackage(ctx, c.req.param('transmittalId'))))
    },
  )
  .get(
    '/api/transmittals/:transmittalId/package/download',
    operation({
      summary: 'The transmittal’s ZIP, streamed (Range supported); a recipient’s download is recorded',
      tag: TAG,
      access: 'session',
      responses: {
        200: { description: 'The ZIP.', contentType: 'application/zip' },
        206: { description: 'A byte range.', contentType: 'application/zip' },
        302: 'Only with BLOB_STORE=s3 and S3_PRESIGN_MIN_BYTES: a whole download of at least that size, after the permission check, goes to a short-lived presigned URL of the bucket.',
        304: 'Not modified.',
        404: 'No such transmittal, or not packaged yet.',
        409: 'Not ready yet, or failed (KR_PACKAGE_NOT_READY).',
        416: 'The range is past the end.',
      },
    }),
    async (c) => {
      const count = startsADownload(c)
      const blob = await run(c, (ctx) => packageDownload(ctx, c.req.param('transmittalId'), count))
      return serveBlob(c, blob, { cache: 'no-cache', csp: 'sandbox', disposition: blob.disposition, missing: 'The package’s file was not found: start packaging again.' })
    },
  )
