import { type FSWatcher, watch } from "node:fs";
import { createSecureContext } from "node:tls";
import { readServingCertificate } from "./certificates.js";
import type { Logger } from "./log.js";

/** Waits for a burst of file events to settle (a Secret update renames a symlink, cp writes twice). */
const settleMs = 100;
/** How often a half-written pair (new certificate, old key) is tried again. */
const retryMs = 1_000;
/** A safety net for missed events, e.g. when the watched directory itself is replaced. */
const pollMs = 30_000;

export interface CertificateReloader {
  stop(): void;
}

/**
 * Watches --cert-dir and hands the new certificate and key to `apply` whenever tls.crt or tls.key change,
 * including the atomic symlink swap (`..data`) with which the kubelet updates a mounted Secret.
 * Connections already open keep their certificate; new ones get the new one. A pair that does not
 * load (mid-write, key not matching) is kept out, the old one stays, and loading is retried.
 */
export function watchCertificates(
  certDir: string,
  apply: (pair: { cert: string; key: string }) => void,
  log: Logger,
): CertificateReloader {
  let current = readServingCertificate(certDir);
  let timer: NodeJS.Timeout | undefined;
  const schedule = (delay: number) => {
    clearTimeout(timer);
    timer = setTimeout(reload, delay);
    timer.unref();
  };
  const reload = () => {
    let next: { cert: string; key: string };
    try {
      next = readServingCertificate(certDir);
    } catch (error) {
      log({
        level: "error",
        msg: "reading the serving certificate failed; keeping the old one",
        error: String(error),
      });
      schedule(retryMs);
      return;
    }
    if (next.cert === current.cert && next.key === current.key) return;
    try {
      createSecureContext(next); // throws when the key does not belong to the certificate
      apply(next);
    } catch (error) {
      log({
        level: "error",
        msg: "the new serving certificate does not load; keeping the old one",
        error: String(error),
      });
      schedule(retryMs);
      return;
    }
    current = next;
    log({ msg: "serving certificate reloaded", certDir });
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(certDir, { persistent: false }, () => schedule(settleMs));
    watcher.on("error", () => schedule(settleMs));
  } catch (error) {
    log({
      level: "error",
      msg: "watching the certificate directory failed; polling only",
      error: String(error),
    });
  }
  const poll = setInterval(reload, pollMs);
  poll.unref();
  return {
    stop() {
      watcher?.close();
      clearInterval(poll);
      clearTimeout(timer);
    },
  };
}
