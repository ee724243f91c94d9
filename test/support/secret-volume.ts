import { existsSync, mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

let generation = 0;

/**
 * Writes files into `dir` the way the kubelet updates a mounted Secret (its AtomicWriter): the files go
 * into a new hidden directory, a `..data` symlink is swapped to it in one rename, and each visible name
 * is a symlink through `..data`. Readers never see a half-written set.
 */
export function writeSecretVolume(dir: string, files: Record<string, string>): void {
  const version = `..${Date.now()}_${++generation}`;
  mkdirSync(join(dir, version));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, version, name), content);
  const data = join(dir, "..data");
  const previous = existsSync(data) ? readlinkSync(data) : undefined;
  symlinkSync(version, join(dir, "..data_tmp"));
  renameSync(join(dir, "..data_tmp"), data);
  for (const name of Object.keys(files)) {
    if (!existsSync(join(dir, name))) symlinkSync(join("..data", name), join(dir, name));
  }
  if (previous) rmSync(join(dir, previous), { recursive: true });
}
