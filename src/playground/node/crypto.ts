/** node:crypto in the page: what the engine calls, over the Web Crypto API and @noble/hashes' SHA-256. */
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex } from "@noble/hashes/utils";

/** A uniform integer in [0, max), without modulo bias. */
export function randomInt(max: number): number {
  const limit = Math.floor(0x1_0000_0000 / max) * max;
  const word = new Uint32Array(1);
  do crypto.getRandomValues(word);
  while ((word[0] as number) >= limit);
  return (word[0] as number) % max;
}

export function createHash(algorithm: "sha256") {
  if (algorithm !== "sha256") throw new Error(`hash ${algorithm} is not available in the playground`);
  const hash = sha256.create();
  const encoder = new TextEncoder();
  const digest = {
    update(text: string) {
      hash.update(encoder.encode(text));
      return digest;
    },
    digest(_encoding: "hex") {
      return bytesToHex(hash.digest());
    },
  };
  return digest;
}

/** A version 4 UUID from getRandomValues (crypto.randomUUID exists only in secure contexts). */
export function randomUUID(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytesToHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
