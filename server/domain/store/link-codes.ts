import { createHmac, randomInt } from 'node:crypto'
import { LINK_CODE_ALPHABET, LINK_CODE_LENGTH } from '~/lib/store/types'

/**
 * Link codes (docs/store-subscriptions.md "Link codes"): 8 characters of an alphabet people do not
 * misread (23^8 ≈ 7.8 × 10^10 codes), shown as two groups of four. Only an HMAC under the server's
 * secret is stored, so the table alone does not give a live code away.
 */

export function newLinkCode(): string {
  return Array.from({ length: LINK_CODE_LENGTH }, () => LINK_CODE_ALPHABET[randomInt(LINK_CODE_ALPHABET.length)]).join('')
}

/** K7QM3TXA → K7QM-3TXA */
export function groupedCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`
}

/** `code` is normalised already (app/lib/schemas/store.ts LinkCodeInputSchema). */
export function linkCodeHash(secret: string, code: string): string {
  return createHmac('sha256', secret).update(`store-link-code:${code}`).digest('base64url')
}
