// Precompresses the hashed client assets (build/client/assets) with brotli and gzip, so the server
// sends them without compressing per request (server/web/front-door.ts serves the .br / .gz
// beside each file). Only text types are worth it; a variant that is not smaller is not written.
import { readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'

const ASSETS_DIR = 'build/client/assets'
const COMPRESSIBLE = /\.(?:js|mjs|css|svg|json|txt|map)$/
// Below this, the headers of a compressed answer cost more than compression saves.
const MIN_BYTES = 512

const brotli = promisify(brotliCompress)
const gz = promisify(gzip)

const files = (await readdir(ASSETS_DIR)).filter((name) => COMPRESSIBLE.test(name))
let raw = 0
let br = 0
let gzipped = 0
await Promise.all(
  files.map(async (name) => {
    const file = path.join(ASSETS_DIR, name)
    const bytes = await readFile(file)
    if (bytes.length < MIN_BYTES) return
    const [b, g] = await Promise.all([
      brotli(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
      gz(bytes, { level: 9 }),
    ])
    raw += bytes.length
    if (b.length < bytes.length) {
      await writeFile(`${file}.br`, b)
      br += b.length
    }
    if (g.length < bytes.length) {
      await writeFile(`${file}.gz`, g)
      gzipped += g.length
    }
  }),
)
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`
console.log(`precompressed ${files.length} assets: ${kib(raw)} → brotli ${kib(br)}, gzip ${kib(gzipped)}`)
