import { Link } from 'react-router'

/** "Items / #12 Title": the way back from a page about one item (its activity, a photo's markup, its pin). */
export function ItemBreadcrumbs({ item }: { item: { id: string; number: number; title: string } }) {
  return (
    <nav aria-label="Breadcrumb" className="mb-3 text-sm">
      <ol className="flex flex-wrap gap-x-2 text-muted">
        <li>
          <Link to="/items" className="text-primary-strong underline underline-offset-2">
            Items
          </Link>
          <span aria-hidden="true"> /</span>
        </li>
        <li>
          <Link to={`/items/${item.id}`} className="text-primary-strong underline underline-offset-2">
            #{item.number} {item.title}
          </Link>
        </li>
      </ol>
    </nav>
  )
}
