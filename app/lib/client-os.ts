/** The X-Client-OS value: a short reading of the User-Agent, nothing finer is needed. */
export function detectClientOs(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown'
  // Order matters: Android user agents also say Linux, iOS ones say "like Mac OS X".
  if (/android/i.test(userAgent)) return 'Android'
  if (/iphone|ipad|ipod/i.test(userAgent)) return 'iOS'
  if (/windows/i.test(userAgent)) return 'Windows'
  if (/macintosh|mac os x/i.test(userAgent)) return 'macOS'
  if (/linux|x11/i.test(userAgent)) return 'Linux'
  return 'Unknown'
}
