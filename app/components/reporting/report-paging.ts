import type { PaginationProps } from '~/components/ui/pagination'

/**
 * Cursor paging in the URL for the reporting lists. The API pages forward only (`after`, an
 * opaque cursor), so the way back is kept in the URL too: `back` holds the cursors of the pages
 * before this one, dot-separated (cursors are base64url, which has no dot). Every page keeps its
 * own address, and Previous and Next are plain links that work without JavaScript.
 */
export type CursorPosition = { after: string | null; back: string[] }

const SEPARATOR = '.'

export function cursorPosition(searchParams: URLSearchParams): CursorPosition {
  const after = searchParams.get('after') || null
  const back = after ? (searchParams.get('back') ?? '').split(SEPARATOR).filter(Boolean) : []
  return { after, back }
}

/** The query of the API call for this position. */
export function cursorQuery(position: CursorPosition): Record<string, string> {
  return position.after ? { after: position.after } : {}
}

/** 1 on the first page. */
export function pageNumber(position: CursorPosition): number {
  return position.after ? position.back.length + 2 : 1
}

export function cursorPagination(position: CursorPosition, nextCursor: string | null, label: string): PaginationProps {
  const { after, back } = position
  const previous = after
    ? { after: back.at(-1) ?? null, back: back.length > 1 ? back.slice(0, -1).join(SEPARATOR) : null }
    : null
  const next = nextCursor ? { after: nextCursor, back: after ? [...back, after].join(SEPARATOR) : null } : null
  return { previous, next, summary: `Page ${pageNumber(position)}`, label }
}

/** Search parameters without the paging ones, e.g. for a redirect after a change. */
export function withoutPaging(searchParams: URLSearchParams): URLSearchParams {
  const rest = new URLSearchParams(searchParams)
  rest.delete('after')
  rest.delete('back')
  return rest
}
