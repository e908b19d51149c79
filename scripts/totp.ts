// Prints the current authentication code of the demo admin (README "Demo accounts"), or of the
// Base32 secret given as the first argument.
import { DEMO } from '#server/db/demo-accounts'
import { currentTotp } from '#server/domain/auth/totp'

const secret = process.argv[2] ?? DEMO.adminTotpSecret
const now = new Date()
const code = await currentTotp(secret, now)
const secondsLeft = 30 - (Math.floor(now.getTime() / 1000) % 30)
console.log(`${code}  (valid for ${secondsLeft} more seconds)`)
