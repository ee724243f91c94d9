import { closeSync, openSync, readlinkSync, readSync } from "node:fs";

/**
 * The calling thread's id as Linux knows it (`/proc/thread-self` is `<pid>/task/<tid>`); undefined
 * elsewhere. A worker tells the main thread, which can then read how much CPU time the worker used.
 */
export function ownThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isInteger(tid) ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** A thread's CPU time so far, in milliseconds. */
export interface ThreadCpuClock {
  read(): number;
  close(): void;
}

/**
 * The CPU time of one of this process's threads, from Linux's `/proc/self/task/<tid>/schedstat`
 * (nanoseconds on the CPU), read through a file kept open; undefined where there is none.
 */
export function threadCpuClock(tid: number | undefined): ThreadCpuClock | undefined {
  if (tid === undefined) return undefined;
  let fd: number;
  try {
    fd = openSync(`/proc/self/task/${tid}/schedstat`, "r");
  } catch {
    return undefined;
  }
  const buffer = Buffer.alloc(128);
  let closed = false;
  return {
    read: () => {
      const length = readSync(fd, buffer, 0, buffer.length, 0);
      return Number(buffer.toString("latin1", 0, length).split(" ", 1)[0]) / 1e6;
    },
    close: () => {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}
