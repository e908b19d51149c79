/**
 * When an identity provider's sign-in counts as our second factor (docs/identity-provider.md
 * "Second factor"). The ID token's `amr` (Authentication Methods References, OIDC Core §2;
 * values registered by RFC 8176) must name multi-factor authentication itself or a factor that
 * is something the person has beyond a password:
 *
 * - `mfa`  multiple-factor authentication
 * - `mca`  multiple-channel authentication
 * - `otp`  a one-time password (authenticator app or token)
 * - `hwk`  a hardware-secured key (security key, passkey on a device's secure element)
 * - `sc`   a smart card
 *
 * Not enough on their own: `pwd`, `pin`, `kba` (knowledge), `sms` and `tel` (a phone number can
 * be taken over), `swk` (a software key may just be a browser cookie), `rba`, `geo`, `wia`, and
 * biometrics that only unlock the same device. Anything else or no `amr` at all: not asserted,
 * and the sign-in's usual second-factor rule applies.
 */
export const MFA_AMR_VALUES = ['mfa', 'mca', 'otp', 'hwk', 'sc'] as const

export function assertsMfa(amr: unknown): boolean {
  if (!Array.isArray(amr)) return false
  return amr.some((value) => typeof value === 'string' && (MFA_AMR_VALUES as readonly string[]).includes(value.toLowerCase()))
}
