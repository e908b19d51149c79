import { z } from 'zod'

/** Query parameters as forms and links send them, shared by the list calls. */

/** An HTML form sends an empty field for "nothing": read it as absent. */
export const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema.optional())

/** A page number or size: a whole number from 1 to `max`, its error naming the parameter. */
export const wholeNumber = (name: string, max: number) =>
  z.coerce
    .number({ error: `${name} must be a whole number from 1 to ${max}.` })
    .int(`${name} must be a whole number from 1 to ${max}.`)
    .min(1, `${name} must be a whole number from 1 to ${max}.`)
    .max(max, `${name} must be a whole number from 1 to ${max}.`)
