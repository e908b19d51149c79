/**
 * Joins class names, dropping the falsy ones. Kit components accept `className` for layout
 * (margin, width, grid placement), not for restyling: a screen composes the kit, it does not
 * restyle it (STYLE.md "UI components").
 */
export function cx(...parts: Array<string | false | null | undefined>): string {
  return parts.filter(Boolean).join(' ')
}
