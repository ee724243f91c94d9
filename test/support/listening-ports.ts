import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * The TCP ports a process listens on, sorted, from Linux's /proc: the socket inodes among its file
 * descriptors, matched with the LISTEN entries (state 0A) of /proc/net/tcp and tcp6. A test reads what
 * the process holds open, not whether a guessed port happens to answer.
 */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // A descriptor closed while listed.
    }
  }
  const ports = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (state !== "0A" || !local || !inode || !inodes.has(inode)) continue;
      ports.add(Number.parseInt(local.split(":").pop() ?? "", 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}
