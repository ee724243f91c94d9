import { createPrivateKey, X509Certificate } from "node:crypto";
import { type FSWatcher, watch } from "node:fs";
import { createSecureContext } from "node:tls";
import type { Logger } from "../base/log.js";
import { readServingCertificate } from "./certificates.js";

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
 * Connections already open keep their certificate; new ones get the new one. A pair that is not whole
 * and valid now (see `pairProblem`) is kept out, the old one stays, loading is retried, and each such
 * pair is logged and counted once (`onRefused`).
 */
export function watchCertificates(
  certDir: string,
  apply: (pair: { cert: string; key: string }) => void,
  log: Logger,
  counted: { onReloaded?: () => void; onRefused?: () => void } = {},
): CertificateReloader {
  let current = readServingCertificate(certDir);
  let lastRefused = "";
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
    let problem = pairProblem(next, Date.now());
    if (problem === undefined) {
      try {
        apply(next);
      } catch (error) {
        problem = String(error);
      }
    }
    if (problem !== undefined) {
      // Retried until the files are whole; said and counted once per pair.
      const refused = `${next.cert}\n${next.key}`;
      if (refused !== lastRefused) {
        lastRefused = refused;
        log({
          level: "error",
          msg: "the new serving certificate does not load; keeping the old one",
          error: problem,
        });
        counted.onRefused?.();
      }
      schedule(retryMs);
      return;
    }
    current = next;
    lastRefused = "";
    log({ msg: "serving certificate reloaded", certDir });
    counted.onReloaded?.();
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

/**
 * Why a certificate and key cannot serve now, or undefined when they can: both present, the key the
 * certificate's own, the certificate valid at `now`. Node's createSecureContext takes an empty key
 * (what a truncate-then-write passes through, or a Secret with an empty tls.key) without a word, and
 * every handshake after it fails.
 */
export function pairProblem(pair: { cert: string; key: string }, now: number): string | undefined {
  if (pair.cert.trim() === "") return "tls.crt is empty";
  if (pair.key.trim() === "") return "tls.key is empty";
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pair.cert);
  } catch (error) {
    return `tls.crt is not a certificate: ${String(error)}`;
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(pair.key);
  } catch (error) {
    return `tls.key is not a private key: ${String(error)}`;
  }
  if (!certificate.checkPrivateKey(key)) return "tls.key is not the key of tls.crt";
  const [from, to] = [Date.parse(certificate.validFrom), Date.parse(certificate.validTo)];
  if (now < from || now > to) {
    return `tls.crt is not valid now: valid from ${certificate.validFrom} to ${certificate.validTo}`;
  }
  try {
    createSecureContext(pair);
  } catch (error) {
    return String(error);
  }
  return undefined;
}
