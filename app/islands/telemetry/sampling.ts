/**
 * Configuration › Telemetry "Sampling": the share of visitors that send usage events, decided per
 * visitor so one browser is in or out for the whole life of its kr-vis id (7 days), not page by
 * page. FNV-1a of the id, spread over 0–99.
 */
export function inSample(visitorId: string, percent: number): boolean {
  if (percent >= 100) return true
  if (percent <= 0) return false
  let hash = 0x811c9dc5
  for (let i = 0; i < visitorId.length; i++) {
    hash ^= visitorId.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash % 100 < percent
}
