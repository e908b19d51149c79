import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, test } from 'vitest'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'

// app/components/ui/data-table.tsx, stackOnPhone: one table whose rows CSS draws as cards on a
// phone, so a list renders each row once (the items list and the document list drew a table and
// a second list of cards before, issue 37).
type Row = { id: string; name: string; state: string }
const rows: Row[] = [
  { id: 'a', name: 'Alpha', state: 'Open' },
  { id: 'b', name: 'Beta', state: 'Closed' },
]
const columns: Array<DataTableColumn<Row>> = [
  { key: 'pick', header: 'Pick', phone: 'corner', cell: (row) => createElement('input', { type: 'checkbox', name: 'ids', value: row.id }) },
  { key: 'name', header: 'Name', rowHeader: true, phone: 'headline', cell: (row) => row.name },
  { key: 'state', header: createElement('span', null, 'State'), phoneLabel: 'Where it stands', cell: (row) => row.state },
]

function render(stackOnPhone: boolean): string {
  return renderToString(createElement(DataTable<Row>, { caption: 'Things', columns, rows, rowKey: (row) => row.id, stackOnPhone }))
}

describe('a data table stacked on a phone', () => {
  test('each row is rendered once, its fields labelled for the card and its cells placed by their column', () => {
    const html = render(true)
    expect(html.match(/<tr[ >]/g)).toHaveLength(3)
    expect(html.match(/name="ids"/g)).toHaveLength(2)
    expect(html.match(/data-label="Where it stands"/g)).toHaveLength(2)
    // The headline's label is its header, for a screen reader; its card shows no label before it.
    expect(html).toMatch(/<th scope="row" class="[^"]*max-sm:order-1[^"]*" data-label="Name">Alpha<\/th>/)
    expect(html).toMatch(/<td class="[^"]*max-sm:absolute[^"]*" data-label="Pick">/)
    expect(html).toMatch(/<td class="[^"]*max-sm:before:content-\[attr\(data-label\)\][^"]*" data-label="Where it stands">Open<\/td>/)
    // The head is for the wide screen only.
    expect(html).toMatch(/<thead class="[^"]*max-sm:hidden/)
  })

  test('without it the table is as it was: no phone classes, no labels', () => {
    const html = render(false)
    expect(html).not.toContain('max-sm:')
    expect(html).not.toContain('data-label')
  })
})
