// Runs a wasm32-wasip1 program under Node's WASI, passing the arguments on.
// `cargo xtask bench` uses it to time the model compiled to wasm.
import { WASI } from 'node:wasi';
import fs from 'node:fs';

const [, , file, ...args] = process.argv;
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: {} });
const module = await WebAssembly.compile(fs.readFileSync(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
wasi.start(instance);
