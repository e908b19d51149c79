import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { BackendEnv } from './env'
import { bodyTooLarge } from './limits'
import { Problem, problems } from './problem'

/**
 * The multipart forms sent without JavaScript (photos, photo edits, support attachments): the body
 * limit, enforced while it streams in, and the form parsed in memory (so one request is bounded by
 * that limit), a body that is not multipart answering 400 with what to send instead.
 */
export function multipartLimit(maxBytes: number): MiddlewareHandler<BackendEnv> {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new Problem(bodyTooLarge(maxBytes))
    },
  })
}

export async function multipartForm(c: Context<BackendEnv>, whatToSend: string): Promise<FormData> {
  try {
    return await c.req.raw.formData()
  } catch (error) {
    if (error instanceof Problem) throw error
    throw new Problem(problems.badRequest(`Send ${whatToSend} as multipart/form-data.`))
  }
}

/** The non-empty file parts under `names`; none, or more than `max`, is a 400 on the `file` field. */
export function fileParts(form: FormData, names: string[], options: { max: number; noun: string }): File[] {
  const files = names.flatMap((name) => form.getAll(name)).filter((v): v is File => v instanceof File && v.size > 0)
  if (files.length === 0) throw new Problem(problems.badRequest(`Attach at least one ${options.noun}.`, { file: [`Attach at least one ${options.noun}.`] }))
  if (files.length > options.max) {
    const message = `Send at most ${options.max} ${options.noun}s at once.`
    throw new Problem(problems.badRequest(message, { file: [message] }))
  }
  return files
}
