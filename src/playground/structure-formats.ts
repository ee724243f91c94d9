/**
 * The formats the compiled validators call (ajv standalone code names them through this module):
 * ajv-formats' full set, with `uri` as src/validation/structure.ts adds it (the API server's reading, Go's
 * url.ParseRequestURI). Not imported from structure.ts: that module imports ajv, whose stand-in imports
 * the validators, which import this module.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";
import { goRequestUriError } from "../go/net-url/parse.js";

export const formats = { ...fullFormats, uri: (value: string) => goRequestUriError(value) === undefined };
