export {}
// One half of the contract's operations (tests/fuzz/fuzz-contract.ts), so the two halves run in parallel.
;(globalThis as { FUZZ_SHARD?: [number, number] }).FUZZ_SHARD = [0, 2]
await import('./fuzz-contract')
