import { Buffer } from "node:buffer";
import {
  closeSync,
  constants,
  type Dirent,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { limits } from "../base/limits.js";
import { InputError } from "./input-error.js";

const manifestExtensions = /\.(ya?ml|json)$/i;

/** A directory a walk leaves out, or a file named that is no manifest, and why. */
export interface SkippedDirectory {
  path: string;
  why: string;
  /** A file named (a hook passes a chart template it was given), not a directory. */
  file?: true;
}

/**
 * Why a directory met in a walk holds no manifests to read: dependencies, git's own files, and a Helm
 * chart's templates (Go templates, not YAML: render them with `helm template` and validate that). A
 * directory named as an argument is read whatever its name.
 */
function notManifests(dir: string, name: string): string | undefined {
  if (name === "node_modules") return "npm dependencies";
  if (name === ".git") return "git's own files";
  if (name === "templates" && existsSync(join(dir, "Chart.yaml"))) {
    return "a Helm chart's templates: validate `helm template` output instead";
  }
  return undefined;
}

/**
 * Whether a file named is a Helm chart's template (under `templates/` beside a `Chart.yaml`, at any
 * depth): a pre-commit hook passes every changed `*.yaml`, and a walk would have left it out.
 */
function isChartTemplate(file: string): boolean {
  let dir = dirname(resolve(file));
  for (;;) {
    const parent = dirname(dir);
    if (basename(dir) === "templates" && existsSync(join(parent, "Chart.yaml"))) return true;
    if (parent === dir) return false;
    dir = parent;
  }
}

/**
 * The files behind `-f` arguments: files as given, directories walked for *.yaml, *.yml and *.json,
 * leaving out (and telling `onSkip`) the directories that hold no manifests. A pull request can add a
 * symbolic link as well as a file: one in a walked directory that leads nowhere (a loop, a missing
 * target) or out of the directory named (`a.yaml -> /etc/passwd`, `-> ~/.kube/config`) is not read
 * but told to `onUnreadable`, as a file that cannot be read is.
 */
export function manifestFiles(
  paths: string[],
  onSkip: (skipped: SkippedDirectory) => void = () => {},
  onUnreadable: (error: InputError) => void = (error) => {
    throw error;
  },
): string[] {
  return paths.flatMap((path) => {
    if (path === "-") return [path];
    let stat: Stats;
    try {
      stat = statSync(path);
    } catch (error) {
      throw new InputError(path, undefined, reasonOf(error as NodeJS.ErrnoException));
    }
    if (!stat.isDirectory()) {
      if (!isChartTemplate(path)) return [path];
      onSkip({ path, why: "a Helm chart's template: validate `helm template` output instead", file: true });
      return [];
    }
    return walk(path, realpathSync(path), onSkip, onUnreadable);
  });
}

function walk(
  dir: string,
  root: string,
  onSkip: (skipped: SkippedDirectory) => void,
  onUnreadable: (error: InputError) => void,
): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    throw new InputError(dir, undefined, (error as Error).message);
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  return entries.flatMap((entry) => {
    const child = join(dir, entry.name);
    if (entry.isDirectory()) {
      const why = notManifests(dir, entry.name);
      if (why === undefined) return walk(child, root, onSkip, onUnreadable);
      onSkip({ path: child, why });
      return [];
    }
    if (!manifestExtensions.test(entry.name)) return [];
    if (entry.isSymbolicLink()) {
      let target: string;
      try {
        target = realpathSync(child);
      } catch (error) {
        onUnreadable(new InputError(child, undefined, reasonOf(error as NodeJS.ErrnoException)));
        return [];
      }
      const inside = relative(root, target);
      if (inside.startsWith("..") || inside === target) {
        onUnreadable(
          new InputError(child, undefined, `a symbolic link to ${target}, outside ${root}: not read`),
        );
        return [];
      }
    }
    return [child];
  });
}

/** What a file is, when it is not a regular one. */
function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a named pipe (fifo)";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  if (stat.isSocket()) return "a socket";
  return "not a regular file";
}

function reasonOf(error: NodeJS.ErrnoException): string {
  if (error.code === "ENOENT") return "no such file or directory";
  if (error.code === "ELOOP") return "a symbolic link loop: not read";
  return error.message;
}

const tooLarge = (file: string) =>
  new InputError(
    file,
    undefined,
    `larger than the ${limits.manifestFileBytes} bytes validate reads from one file: not read`,
  );

/**
 * The text behind `fd`, into one buffer sized from `sizeHint` and doubled as it fills (a file that
 * grows meanwhile, a pipe), up to `limits.manifestFileBytes`: past it an InputError.
 */
export function readBounded(fd: number, file: string, sizeHint = 64 * 1024): string {
  const max = limits.manifestFileBytes;
  let buffer = Buffer.allocUnsafe(Math.min(sizeHint, max) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > max) throw tooLarge(file);
      const grown = Buffer.allocUnsafe(Math.min(length * 2, max + 1));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const read = readSync(fd, buffer, length, buffer.length - length, null);
    if (read === 0) break;
    length += read;
  }
  return buffer.toString("utf8", 0, length);
}

/**
 * A manifest file's text. Only a regular file is read (opened without waiting, so a fifo is found
 * and not waited on; a device such as /dev/zero, which never ends, is not read), and only up to
 * `limits.manifestFileBytes`: what is not read is an InputError, never a hang or a process that grows.
 */
export function readInput(file: string, readStdin: () => string): string {
  if (file === "-") {
    try {
      return readStdin();
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw new InputError(file, undefined, (error as Error).message);
    }
  }
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new InputError(file, undefined, reasonOf(error as NodeJS.ErrnoException));
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw new InputError(file, undefined, `${kindOf(stat)}, not a regular file: not read`);
    if (stat.size > limits.manifestFileBytes) throw tooLarge(file);
    return readBounded(fd, file, stat.size);
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(file, undefined, (error as Error).message);
  } finally {
    closeSync(fd);
  }
}
