import { data } from 'react-router'

/** Any other path inside the signed-in area: a 404 shown by the shell's error screen. */
export function loader() {
  throw data(null, { status: 404, statusText: 'The requested resource was not found.' })
}

export default function NotFound() {
  return null
}
