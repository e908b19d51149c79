import type { Context } from 'hono'
import type { z } from 'zod'
import { refuseBrokenText } from './contract'
import { fieldErrors, Problem, problems } from './problem'

/** Reads a JSON body and validates it; bad input becomes a 400 with a field-by-field list. */
export async function parseJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let body: unknown
  try {
    const text = await c.req.text()
    body = text === '' ? {} : JSON.parse(text)
  } catch {
    throw new Problem(problems.badRequest('The request body is not valid JSON.'))
  }
  refuseBrokenText(body, 'Some fields are not valid.')
  const result = schema.safeParse(body)
  if (!result.success) throw new Problem(problems.badRequest('Some fields are not valid.', fieldErrors(result.error)))
  return result.data
}
