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
  test('each row is rendered once, its cells placed in the card by their column and its fields labelled', () => {
    const html = render(true)
    expect(html.match(/<tr[ >]/g)).toHaveLength(3)
    expect(html.match(/name="ids"/g)).toHaveLength(2)
    expect(html.match(/data-phone="field" data-label="Where it stands"/g)).toHaveLength(2)
    // One class on the table draws the cards (app.css): the cells carry only where they go.
    expect(html).toMatch(/<table class="[^"]*table-stack-phone[^"]*">/)
    // The cells' look is the table's too (`table-cells`): a plain cell has no class at all.
    expect(html).toMatch(/<table class="[^"]*table-cells[^"]*">/)
    expect(html).toMatch(/<th scope="row" data-phone="headline">Alpha<\/th>/)
    expect(html).toMatch(/<td data-phone="corner">/)
    expect(html).not.toMatch(/<td[^>]*max-sm:/)
  })

  test('without it the table is as it was: no phone classes, no labels', () => {
    const html = render(false)
    expect(html).not.toContain('max-sm:')
    expect(html).not.toContain('table-stack-phone')
    expect(html).not.toContain('data-phone')
  })

  test('a column set apart keeps its own classes: right-aligned, hidden on a phone', () => {
    const html = renderToString(
      createElement(DataTable<Row>, {
        caption: 'Things',
        columns: [
          { key: 'name', header: 'Name', rowHeader: true, cell: (row) => row.name },
          { key: 'state', header: 'State', align: 'end', hideOnMobile: true, cell: (row) => row.state },
        ],
        rows,
        rowKey: (row) => row.id,
      }),
    )
    expect(html).toMatch(/<th scope="col">Name<\/th>/)
    expect(html.match(/<t[hd][^>]*class="text-right hidden sm:table-cell"/g)).toHaveLength(3)
  })
})
