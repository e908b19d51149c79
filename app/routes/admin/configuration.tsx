/** Being built (issue 14). */
export default function Placeholder() {
  return <p>Not available yet.</p>
}
