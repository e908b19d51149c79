import type { ApiClient } from '~/lib/api/types'

/** Where an administrator sets mail up, as confirmations name it. */
export const MAIL_QUEUED = 'the e-mail is queued because mail is not set up (Administration › Configuration › Mail)'
export const MAILS_QUEUED = 'the e-mails are queued because mail is not set up (Administration › Configuration › Mail)'

/**
 * Whether mail goes out for this organisation (GET /api/mail/status), so a confirmation says what
 * really happened. When the answer cannot be had, it is taken as not set up: a confirmation then
 * says "queued", never "sent" without knowing.
 */
export async function mailSetUp(api: ApiClient): Promise<boolean> {
  const status = await api.GET('/api/mail/status')
  return status.ok && status.data.setUp
}
