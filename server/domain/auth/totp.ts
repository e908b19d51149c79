import { generate, generateSecret, generateURI, verify } from 'otplib'

/** TOTP (RFC 6238) with the parameters every authenticator app understands: SHA-1, 6 digits, 30 s. */
export const TOTP_ISSUER = 'Site Portal'
const TOTP_PERIOD_S = 30
/** One step of clock drift either way. */
const TOTP_TOLERANCE_S = 30

export function newTotpSecret(): string {
  return generateSecret()
}

export function totpUri(secret: string, accountEmail: string): string {
  return generateURI({ issuer: TOTP_ISSUER, label: accountEmail, secret })
}

export function currentTotp(secret: string, now: Date = new Date()): Promise<string> {
  return generate({ secret, epoch: Math.floor(now.getTime() / 1000) })
}

/**
 * Checks a code, allowing one step of clock drift either way. A code is accepted once: the
 * accepted time step is returned and the next check must be for a later step.
 */
export async function checkTotp(
  secret: string,
  code: string,
  now: Date,
  lastUsedStep: number | null,
): Promise<{ valid: false } | { valid: true; timeStep: number }> {
  if (!/^\d{6}$/.test(code)) return { valid: false }
  const epoch = Math.floor(now.getTime() / 1000)
  // Every step this check could accept is already used (a clock behind the one that accepted the
  // last code): refuse, as otplib throws when afterTimeStep lies past its window.
  if (lastUsedStep !== null && lastUsedStep >= Math.floor((epoch + TOTP_TOLERANCE_S) / TOTP_PERIOD_S)) return { valid: false }
  const result = await verify({
    secret,
    token: code,
    epoch,
    epochTolerance: TOTP_TOLERANCE_S,
    ...(lastUsedStep !== null && { afterTimeStep: lastUsedStep }),
  })
  if (!result.valid || !('timeStep' in result)) return { valid: false }
  return { valid: true, timeStep: result.timeStep }
}
