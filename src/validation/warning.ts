// The protocol layer words warnings too (ratcheting, rule actions); the one definition lives there.
export { fitWarning } from "../admission/warning.js";
