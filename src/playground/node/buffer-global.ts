/** The global `Buffer` the engine's modules use, in the page: the `buffer` package (esbuild injects it). */
export { Buffer } from "buffer";
