/**
 * CSV read leniently (LF or CRLF, a byte-order mark, blank lines skipped) for the deliverables
 * register's import, with the line each row starts on for the import's messages. Writing is the
 * server's one CSV writer (server/domain/exports/csv.ts).
 */

export type CsvRow = { line: number; cells: string[] }

/**
 * Rows of a CSV text with the line each starts on (quoted fields may span lines). An unterminated
 * quote is reported as that row's problem rather than swallowing the rest of the file.
 */
export function parseCsv(text: string): { rows: CsvRow[]; problems: Array<{ line: number; message: string }> } {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text
  const rows: CsvRow[] = []
  const problems: Array<{ line: number; message: string }> = []
  let line = 1
  let index = 0
  while (index < source.length) {
    const start = line
    const cells: string[] = []
    let cell = ''
    let quoted = false
    let ended = false
    while (index < source.length && !ended) {
      const char = source[index] as string
      if (quoted) {
        if (char === '"' && source[index + 1] === '"') {
          cell += '"'
          index += 2
        } else if (char === '"') {
          quoted = false
          index++
        } else {
          if (char === '\n') line++
          cell += char
          index++
        }
        continue
      }
      if (char === '"' && cell === '') {
        quoted = true
        index++
      } else if (char === ',') {
        cells.push(cell)
        cell = ''
        index++
      } else if (char === '\r' && source[index + 1] === '\n') {
        index += 2
        ended = true
      } else if (char === '\n' || char === '\r') {
        index++
        ended = true
      } else {
        cell += char
        index++
      }
    }
    cells.push(cell)
    if (quoted) {
      problems.push({ line: start, message: 'A quoted value is not closed: add the closing double quote.' })
      break
    }
    if (ended) line++
    if (cells.length === 1 && cells[0]?.trim() === '') continue
    rows.push({ line: start, cells })
  }
  return { rows, problems }
}
