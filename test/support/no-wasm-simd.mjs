// Preloaded (`node --import ./test/support/no-wasm-simd.mjs`) to play a runtime without
// WebAssembly SIMD, which Node 20 cannot be started as: WebAssembly.validate refuses every module
// holding the SIMD opcode prefix 0xfd, so tfjs's feature probe (flags_wasm.js,
// WASM_HAS_SIMD_SUPPORT) answers no and tfjs loads its build without SIMD.
const validate = WebAssembly.validate.bind(WebAssembly);
WebAssembly.validate = (bytes) => !new Uint8Array(bytes).includes(0xfd) && validate(bytes);
