export default function Home() {
  return <main className="p-6"><h1 className="text-2xl font-semibold">Site Portal</h1></main>
}
