/** The appearance settings on the user tab (issue 14). STUB: the appearance work builds it. */
export function AppearanceCard() {
  return null
}
