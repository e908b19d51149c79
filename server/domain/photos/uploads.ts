import { maxPhotoBytesIn } from '#server/domain/config/effective'
import type { DomainContext } from '#server/domain/tenancy/context'
import { registerFinisher } from '#server/domain/uploads/engine'
import { ensureQuota } from '#server/domain/uploads/quota'
import { checkNewUpload, insertSession, type NewUpload, type UploadSession } from '#server/domain/uploads/session'
import { Problem, problems } from '#server/http/problem'
import { findItem } from '../reporting/item-view'
import { ensure } from '../reporting/permissions'
import { finishPhoto, replayPhoto } from './complete-photo'
import { ALLOWED_TYPES, MAX_FILE_BYTES, tooLarge, typeProblem, type Photo } from './photos'

/** Photo sessions of items; the engine they run on is server/domain/uploads/engine.ts. */

declare module '#server/domain/uploads/engine' {
  interface UploadMade {
    photo: { photo: Photo }
  }
}

registerFinisher('photo', {
  finish: async (rt, row, tenantId) => ({ photo: await finishPhoto(rt, row, tenantId) }),
  replay: async (ctx, row) => {
    const photo = await replayPhoto(ctx, row)
    return photo && { photo }
  },
})

/** POST /api/items/{itemId}/uploads. */
export async function createUpload(ctx: DomainContext, itemId: string, input: NewUpload): Promise<UploadSession> {
  const item = await findItem(ctx, itemId)
  ensure(ctx.actor, 'item.respond')
  const { checksum, errors } = checkNewUpload(input)
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('Some fields are not valid.', errors))
  if (input.size > MAX_FILE_BYTES) throw tooLarge(input.size)
  const orgMaxBytes = await maxPhotoBytesIn(ctx.tx, ctx.actor.tenantId)
  if (input.size > orgMaxBytes) throw tooLarge(input.size, orgMaxBytes)
  if (!(ALLOWED_TYPES as readonly string[]).includes(input.contentType)) throw typeProblem(`${input.contentType} is not a photo type this portal takes.`)
  await ensureQuota(ctx, input.size)
  return insertSession(ctx, { purpose: 'photo', itemId: item.id }, input, checksum)
}
