/**
 * node:fs in the page: the files the engine reads (the schema sources, the generated schemas, the
 * example addon-operator module trees), embedded at build time (scripts/build-playground.ts) and read
 * from memory. Nothing else exists; writing is not possible.
 */
import { files } from "virtual:playground-files";

/** The embedded files, and a picked folder's once read (mount). */
const table: Record<string, string> = { ...(files as Record<string, string>) };

/**
 * Replaces everything under `dir` with `added` (absolute paths under it): a module tree the visitor
 * picked as a folder, read as the embedded files are.
 */
export function mount(dir: string, added: readonly { path: string; text: string }[]): void {
  for (const path of Object.keys(table)) if (path.startsWith(`${dir}/`)) delete table[path];
  for (const file of added) {
    if (!file.path.startsWith(`${dir}/`)) throw new Error(`${file.path} is not under ${dir}`);
    table[file.path] = file.text;
  }
}

function pathOf(path: string | URL): string {
  const text = typeof path === "string" ? path : decodeURIComponent(path.pathname);
  return text.length > 1 ? text.replace(/\/+$/, "") : text;
}

function missing(path: string, syscall: string): Error {
  return Object.assign(new Error(`ENOENT: no such file or directory, ${syscall} '${path}'`), {
    code: "ENOENT",
  });
}

/** The names directly inside a directory, or undefined when it is none. */
function childrenOf(dir: string): Map<string, boolean> | undefined {
  const prefix = dir === "/" ? "/" : `${dir}/`;
  const children = new Map<string, boolean>();
  for (const file of Object.keys(table)) {
    if (!file.startsWith(prefix)) continue;
    const [name, ...rest] = file.slice(prefix.length).split("/");
    if (name) children.set(name, rest.length > 0 || children.get(name) === true);
  }
  return children.size > 0 ? children : undefined;
}

export interface Dirent {
  name: string;
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
}

interface Stats {
  isDirectory(): boolean;
  isFile(): boolean;
  ino: number;
  size: number;
  mtimeMs: number;
}

export function readFileSync(path: string | URL, _encoding?: unknown): string {
  const key = pathOf(path);
  const text = table[key];
  if (text === undefined) throw missing(key, "open");
  return text;
}

export function readdirSync(path: string | URL, options?: { withFileTypes?: boolean }): (string | Dirent)[] {
  const dir = pathOf(path);
  const children = childrenOf(dir);
  if (!children) throw missing(dir, "scandir");
  const names = [...children.keys()].sort();
  if (!options?.withFileTypes) return names;
  return names.map((name) => {
    const directory = children.get(name) === true;
    return { name, isDirectory: () => directory, isFile: () => !directory, isSymbolicLink: () => false };
  });
}

export function statSync(path: string | URL, options?: { throwIfNoEntry?: boolean }): Stats | undefined {
  const key = pathOf(path);
  const text = table[key];
  const directory = text === undefined && childrenOf(key) !== undefined;
  if (text === undefined && !directory) {
    if (options?.throwIfNoEntry === false) return undefined;
    throw missing(key, "stat");
  }
  return {
    isDirectory: () => directory,
    isFile: () => !directory,
    ino: 0,
    size: text?.length ?? 0,
    mtimeMs: 0,
  };
}

export function existsSync(path: string | URL): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined;
}

function unavailable(): never {
  throw new Error("not available in the playground: it has no file system to write to");
}

export const mkdtempSync = unavailable;
export const rmSync = unavailable;
export const writeFileSync = unavailable;
export const mkdirSync = unavailable;
