/** node:path in the page: POSIX paths over the embedded files (./fs.ts), what the engine calls. */

function normalize(path: string): string {
  const absolute = path.startsWith("/");
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && parts.length > 0 && parts[parts.length - 1] !== "..") parts.pop();
    else if (part !== ".." || !absolute) parts.push(part);
  }
  const joined = parts.join("/");
  return absolute ? `/${joined}` : joined || ".";
}

export function join(...paths: string[]): string {
  return normalize(paths.filter((path) => path !== "").join("/"));
}

export function resolve(...paths: string[]): string {
  let resolved = "";
  for (const path of paths) resolved = path.startsWith("/") ? path : `${resolved}/${path}`;
  return normalize(resolved.startsWith("/") ? resolved : `/${resolved}`);
}

export function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

export function dirname(path: string): string {
  const normal = normalize(path);
  const slash = normal.lastIndexOf("/");
  if (slash < 0) return ".";
  return slash === 0 ? "/" : normal.slice(0, slash);
}

export function basename(path: string, suffix?: string): string {
  const name = normalize(path).split("/").pop() ?? "";
  return suffix !== undefined && name.endsWith(suffix) && name !== suffix
    ? name.slice(0, -suffix.length)
    : name;
}

export const sep = "/";
export default { join, resolve, isAbsolute, dirname, basename, sep };
