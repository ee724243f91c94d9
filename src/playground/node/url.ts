/** node:url in the page: what the engine calls, over the browser's own URL parser. */

export function fileURLToPath(url: string | URL): string {
  return decodeURIComponent(new URL(url).pathname);
}

/** Go's and Node's IDNA (UTS #46) conversion as the browser's URL parser does it; "" when it fails. */
export function domainToASCII(domain: string): string {
  try {
    return new URL(`http://${domain}/`).hostname;
  } catch {
    return "";
  }
}
