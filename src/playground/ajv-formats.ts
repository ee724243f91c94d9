/** ajv-formats in the page: the formats are in the validators compiled at build time already (./ajv.ts). */
import type { Ajv } from "./ajv.js";

export default { default: (ajv: Ajv) => ajv };
