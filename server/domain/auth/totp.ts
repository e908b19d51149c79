import { generate, generateSecret, generateURI, verify } from 'otplib'

/** TOTP (RFC 6238) with the parameters every authenticator app understands: SHA-1, 6 digits, 30 s. */
export const TOTP_ISSUER = 'Site Portal'

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
  const result = await verify({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: 30,
    ...(lastUsedStep !== null && { afterTimeStep: lastUsedStep }),
  })
  if (!result.valid || !('timeStep' in result)) return { valid: false }
  return { valid: true, timeStep: result.timeStep }
}
