import { redirect } from 'react-router'
import { createServerApi } from '~/lib/api.server'
import type { Route } from './+types/logout'

/** Signing out is a POST; a plain visit just goes home. */
export function loader() {
  return redirect('/')
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  // Whatever the backend answers, the browser leaves signed out: its cookie is cleared below too.
  await api.DELETE('/auth/session')
  return redirect('/auth/login', { headers: responseHeaders })
}
