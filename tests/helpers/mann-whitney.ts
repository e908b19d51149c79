/**
 * The two-sided Mann–Whitney U test (normal approximation with tie correction): do two samples
 * come from the same distribution? Used to show that timing does not separate two code paths
 * without asserting on any particular duration.
 */
export function mannWhitneyU(a: readonly number[], b: readonly number[]): { u: number; z: number; p: number } {
  const all = [...a.map((value) => ({ value, group: 0 })), ...b.map((value) => ({ value, group: 1 }))].sort((x, y) => x.value - y.value)
  const ranks = new Array<number>(all.length)
  let tieTerm = 0
  for (let i = 0; i < all.length; ) {
    let j = i
    while (j + 1 < all.length && all[j + 1]?.value === all[i]?.value) j++
    const rank = (i + j) / 2 + 1
    for (let k = i; k <= j; k++) ranks[k] = rank
    const ties = j - i + 1
    tieTerm += ties ** 3 - ties
    i = j + 1
  }
  let rankSumA = 0
  all.forEach((entry, index) => {
    if (entry.group === 0) rankSumA += ranks[index] ?? 0
  })
  const n1 = a.length
  const n2 = b.length
  const n = n1 + n2
  const u = rankSumA - (n1 * (n1 + 1)) / 2
  const mean = (n1 * n2) / 2
  const sd = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))))
  const z = sd === 0 ? 0 : (u - mean) / sd
  return { u, z, p: 2 * (1 - normalCdf(Math.abs(z))) }
}

/** Φ(x) through erf (Abramowitz and Stegun 7.1.26, error below 1.5e-7). */
function normalCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * (x / Math.SQRT2))
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
  const erf = 1 - poly * Math.exp(-((x / Math.SQRT2) ** 2))
  return 0.5 * (1 + erf)
}
