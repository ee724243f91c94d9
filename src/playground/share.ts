/**
 * The share link: the page's state, compressed (deflate-raw, the browser's CompressionStream) and
 * base64url-encoded into the URL's fragment, which browsers never send to a server.
 */
import type { PlaygroundState } from "./engine.js";

const prefix = "#s=";

/** The most a fragment may expand to: a share link is never a way to make the page hold gigabytes. */
const maxStateBytes = 8 * 1024 * 1024;

async function transform(
  bytes: Uint8Array,
  stream: CompressionStream | DecompressionStream,
): Promise<Uint8Array> {
  const reader = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.length;
    if (size > maxStateBytes) {
      await reader.cancel();
      throw new Error(`the state is larger than ${maxStateBytes} bytes`);
    }
    chunks.push(read.value);
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.length;
  }
  return whole;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

export async function encodeState(state: PlaygroundState): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(state));
  return prefix + toBase64Url(await transform(json, new CompressionStream("deflate-raw")));
}

/** The state a fragment holds; undefined when it holds none or cannot be read. */
export async function decodeState(fragment: string): Promise<PlaygroundState | undefined> {
  if (!fragment.startsWith(prefix)) return undefined;
  try {
    const json = await transform(
      fromBase64Url(fragment.slice(prefix.length)),
      new DecompressionStream("deflate-raw"),
    );
    const value = JSON.parse(new TextDecoder().decode(json)) as Partial<PlaygroundState>;
    return {
      object: typeof value.object === "string" ? value.object : "",
      old: typeof value.old === "string" ? value.old : "",
      client: value.client === "kubectl" ? "kubectl" : "gitops",
      // Links made before trees could be chosen say `modules: true`: the one tree there was then.
      tree:
        typeof value.tree === "string"
          ? value.tree
          : (value as { modules?: unknown }).modules === true
            ? "echo"
            : "",
    };
  } catch {
    return undefined;
  }
}
