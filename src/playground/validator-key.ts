/** How the page finds a validator compiled at build time (./ajv.ts; scripts/build-playground.ts). */

/** The table's key: whether every error is wanted, and a hash of the schema's JSON text. */
export function validatorKey(allErrors: boolean, schemaText: string): string {
  // cyrb53: 53 bits of a fast string hash, with the length beside it.
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < schemaText.length; i++) {
    const c = schemaText.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const hash = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return `${allErrors ? "full" : "quick"}:${schemaText.length}:${hash.toString(36)}`;
}
