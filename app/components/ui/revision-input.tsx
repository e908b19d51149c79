import { useEffect, useState } from 'react'
import { useNavigation } from 'react-router'

/**
 * The hidden `expectedRevision` of a form that edits a shared record (issue 36 §4,
 * docs/security.md). It holds the revision the form was opened with. When the page shows someone
 * else's save live (the hub revalidates it), the inputs keep what the person typed, so the
 * revision must stay the one they typed against: their save is then refused with "Changed by …
 * since you opened it" instead of being laid over a change they never saw. A new `revision` is
 * taken only as the page settles after a submission that sent this revision: its save (the page
 * reloaded after it) or a conflict's answer, whose revision the kept form saves against next.
 * Without JavaScript every page is drawn anew and the value is simply `revision`.
 */
export function RevisionInput({ revision }: { revision: number }) {
  const navigation = useNavigation()
  const [held, setHeld] = useState({ given: revision, value: revision })
  // A submission under way sent this revision: what the page shows once it settles follows from it.
  const sentThis = navigation.state !== 'idle' && navigation.formData?.get('expectedRevision') === String(held.value)
  const [ownSubmission, setOwnSubmission] = useState(false)
  if (sentThis && !ownSubmission) setOwnSubmission(true)
  if (revision !== held.given) setHeld({ given: revision, value: ownSubmission ? revision : held.value })
  // Settled after its own submission: the revision given now is the one to save against (the
  // record as saved, or as a conflict named it, even when a live update had given it already).
  useEffect(() => {
    if (navigation.state !== 'idle' || !ownSubmission) return
    setHeld({ given: revision, value: revision })
    setOwnSubmission(false)
  }, [navigation.state, ownSubmission, revision])
  return <input type="hidden" name="expectedRevision" value={held.value} />
}
