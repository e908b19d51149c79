import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { queuePackage, readyPackage } from '#server/domain/doc-control/packaging'
import {
  acknowledgeShared,
  recordOutsideDownload,
  reloadLink,
  respondShared,
  sharedFile,
  sharedView,
  viewShared,
  withLink,
  type LinkContext,
} from '#server/domain/doc-control/transmittal-links'
import type { BackendEnv } from '#server/http/env'
import { operation, pathPattern } from '#server/http/contract'
import { nudgePackaging } from '#server/jobs/transmittal-packaging'
import { SharedTransmittalSchema } from '~/lib/schemas/doc-control-responses'
import { TransmittalRespondSchema } from '~/lib/schemas/transmittals'
import { serveBlob } from '../photos/serve-blob'

/**
 * An outside contact's link (issue 32, docs/decisions/024-transmittal-links.md): no session, the
 * signed token is all. It reaches one transmittal: its page, its revisions' files, its package,
 * and the contact's receipt and reply. Every refusal of the link itself (forged, expired, revoked,
 * unknown) is the same 404, and so is anything not of that transmittal.
 */

const TAG = 'Transmittals'
/** base64url(payload).base64url(HMAC-SHA256), as server/domain/transmittal-link-token.ts signs it; one that does not verify is 404 like an unknown link. */
const TokenParam = z.object({
  token: pathPattern(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/, 'The link’s signed token (base64url payload, a dot, base64url HMAC-SHA256); one that does not verify, or names a link revoked or expired, is 404.', z.string().min(1).max(512)),
})
const FileParams = TokenParam.extend({ revisionId: z.uuid() })
const gone = 'No such link, or it expired or was revoked.'

function link<T>(c: Context<BackendEnv>, token: string, work: (l: LinkContext) => Promise<T>, options: { lock?: boolean } = {}): Promise<T> {
  const { db, now, config } = c.get('deps')
  return withLink(db, config.sessionSecret, token, now(), work, options)
}

const base = (token: string) => `/api/shared/transmittals/${token}`

/** A new download, not a client resuming one (a later range) or revalidating what it holds. */
function startsADownload(c: Context<BackendEnv>): boolean {
  if (c.req.method !== 'GET' || c.req.header('if-none-match') !== undefined) return false
  const range = c.req.header('range')
  return range === undefined || /^bytes=0-/.test(range.trim())
}

const fileResponses = (type: string) => ({
  200: { description: 'The file.', contentType: type },
  206: { description: 'A byte range.', contentType: type },
  304: 'Not modified.',
  404: gone,
  416: 'The range is past the end.',
})

export const sharedTransmittalRoutes = new Hono<BackendEnv>()
  .get(
    '/api/shared/transmittals/:token',
    operation({
      summary: 'The transmittal behind an outside contact’s link (public): its documents, revisions, package and the contact’s receipt; a recorded view',
      tag: TAG,
      access: 'public',
      params: TokenParam,
      responses: { 200: { description: 'The transmittal, read-only.', schema: SharedTransmittalSchema }, 404: gone },
    }),
    async (c) => {
      const { token } = c.req.valid('param')
      c.header('cache-control', 'no-store')
      return c.json(await link(c, token, (l) => viewShared(l, base(token)), { lock: true }))
    },
  )
  .get(
    '/api/shared/transmittals/:token/revisions/:revisionId/file',
    operation({
      summary: 'Download one revision of the link’s transmittal (public; Range supported); a recorded download',
      tag: TAG,
      access: 'public',
      params: FileParams,
      // The file's own type (a drawing's PDF, a PNG…), as the members' revision download declares it.
      responses: fileResponses('*/*'),
    }),
    async (c) => {
      const { token, revisionId } = c.req.valid('param')
      const count = startsADownload(c)
      const blob = await link(
        c,
        token,
        async (l) => {
          const served = await sharedFile(l, revisionId)
          if (count) await recordOutsideDownload(l, 'file', revisionId)
          return served
        },
        { lock: count },
      )
      return serveBlob(c, blob, { cache: 'no-cache', csp: 'sandbox', disposition: 'attachment', missing: 'The file was not found.' })
    },
  )
  .post(
    '/api/shared/transmittals/:token/package',
    operation({
      summary: 'Start packaging the link’s transmittal into a ZIP (public); an existing package is answered as it is',
      tag: TAG,
      access: 'public',
      params: TokenParam,
      responses: { 202: { description: 'The transmittal with its package: poll GET /api/shared/transmittals/{token}.', schema: SharedTransmittalSchema }, 404: gone },
    }),
    async (c) => {
      const { token } = c.req.valid('param')
      const { answer, created, tenantId } = await link(c, token, async (l) => {
        const { created } = await queuePackage(l.ctx, l.transmittal, null)
        return { answer: await sharedView(l, base(token)), created, tenantId: l.ctx.actor.tenantId }
      })
      if (created) nudgePackaging(tenantId)
      return c.json(answer, 202)
    },
  )
  .get(
    '/api/shared/transmittals/:token/package/download',
    operation({
      summary: 'Download the link’s transmittal as a ZIP (public; Range supported); a recorded download',
      tag: TAG,
      access: 'public',
      params: TokenParam,
      responses: { ...fileResponses('application/zip'), 404: `${gone} Or not packaged yet.`, 409: 'Not ready yet, or failed (KR_PACKAGE_NOT_READY).' },
    }),
    async (c) => {
      const { token } = c.req.valid('param')
      const count = startsADownload(c)
      const blob = await link(
        c,
        token,
        async (l) => {
          const served = await readyPackage(l.ctx, l.transmittal)
          if (count) await recordOutsideDownload(l, 'package', null)
          return served
        },
        { lock: count },
      )
      return serveBlob(c, blob, { cache: 'no-cache', csp: 'sandbox', disposition: 'attachment', missing: 'The package’s file was not found.' })
    },
  )
  .post(
    '/api/shared/transmittals/:token/acknowledge',
    operation({
      summary: 'Acknowledge receipt through the link (public)',
      tag: TAG,
      access: 'public',
      params: TokenParam,
      responses: { 200: { description: 'The transmittal.', schema: SharedTransmittalSchema }, 404: gone, 409: 'Acknowledged already, or the transmittal is closed (KR_TRANSMITTAL_STATE).' },
    }),
    async (c) => {
      const { token } = c.req.valid('param')
      return c.json(
        await link(
          c,
          token,
          async (l) => {
            await acknowledgeShared(l)
            return sharedView(await reloadLink(l), base(token))
          },
          { lock: true },
        ),
      )
    },
  )
  .post(
    '/api/shared/transmittals/:token/respond',
    operation({
      summary: 'Reply with a comment through the link (public; acknowledges too)',
      tag: TAG,
      access: 'public',
      params: TokenParam,
      body: TransmittalRespondSchema,
      responses: {
        200: { description: 'The transmittal.', schema: SharedTransmittalSchema },
        400: 'No response.',
        404: gone,
        409: 'Replied already, or the transmittal is closed (KR_TRANSMITTAL_STATE).',
      },
    }),
    async (c) => {
      const { token } = c.req.valid('param')
      const { response } = c.req.valid('json')
      return c.json(
        await link(
          c,
          token,
          async (l) => {
            await respondShared(l, response)
            return sharedView(await reloadLink(l), base(token))
          },
          { lock: true },
        ),
      )
    },
  )
