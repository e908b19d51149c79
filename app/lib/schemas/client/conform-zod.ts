import { parse } from '@conform-to/react'

/**
 * What `@conform-to/zod/v4` is in the client build (vite.config.ts): the schemas there are their
 * HTML constraints only (vite.config.ts, clientSchemas), so zod stays off the pages. The server
 * renders the same constraint attributes, validates every submission with the real schema and
 * sends its errors back, so a form shows the same messages with JavaScript on and off; the browser
 * no longer checks a form before sending it.
 */
type ClientSchema = { '~constraint'?: Record<string, unknown> }

export function getZodConstraint(schema: ClientSchema): Record<string, unknown> {
  return schema['~constraint'] ?? {}
}

/** Every submission goes to the server, whose action validates it with the real schema. */
export function parseWithZod(payload: FormData | URLSearchParams, _options: { schema: unknown }) {
  return parse(payload, { resolve: (value) => ({ value }) })
}
