import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CoreV1Api, type KubeConfig, type V1Secret } from "@kubernetes/client-node";
import type { Logger } from "../base/log.js";
import { certFiles, issueCertificates } from "../server/certificates.js";
import { apiErrorMessage, httpStatus } from "./api-errors.js";
import { certificateDnsNames, certificateExpiry, certificateStart, splitPemBundle } from "./pem.js";
import { injectCaBundle } from "./webhook-ca-bundle.js";

export interface SelfSignedOptions {
  kubeConfig: KubeConfig;
  /** The kubernetes.io/tls Secret every replica shares. */
  secret: { namespace: string; name: string };
  /** The Mutating- and ValidatingWebhookConfiguration whose caBundle to keep current. */
  webhookConfiguration?: string;
  /** Where the server reads tls.crt, tls.key and ca.crt. */
  certDir: string;
  dnsNames: string[];
  log: Logger;
  /** Lifetime of newly issued certificates (default 365 days). */
  validityDays?: number;
  /** How often to look at the Secret again (default 10 minutes): renewal, or another replica's renewal. */
  checkIntervalMs?: number;
  now?: () => number;
  /** Called after new certificate files were written: the server loads them. */
  onChange?: () => void;
}

export interface SelfSignedCertificates {
  /** Reads the Secret; issues, stores and injects what is missing or expiring; writes the files. */
  refresh(): Promise<{ filesChanged: boolean; issued: boolean }>;
  stop(): void;
}

interface TlsData {
  cert: string;
  key: string;
  /** PEM bundle: the CA that signed `cert`, then the previous CA while it is still valid. */
  ca: string;
}

/**
 * The selfSigned certificate mode. Replicas share one Secret and never fight: whoever finds it empty or
 * expiring issues a new CA and serving certificate and writes them with optimistic concurrency (create,
 * or update at the resourceVersion it read); a replica that loses (409) adopts the winner's. Renewal
 * happens when a third of the lifetime is left; the old CA stays in the bundle beside the new one, so
 * replicas still serving the old certificate keep being trusted until they pick up the new one.
 */
export async function startSelfSignedCertificates(
  options: SelfSignedOptions,
): Promise<SelfSignedCertificates> {
  const api = options.kubeConfig.makeApiClient(CoreV1Api);
  const { namespace, name } = options.secret;
  const now = options.now ?? Date.now;
  const secretName = `${namespace}/${name}`;

  const read = async (): Promise<V1Secret | undefined> => {
    try {
      return await api.readNamespacedSecret({ name, namespace });
    } catch (error) {
      if (httpStatus(error) === 404) return undefined;
      throw error;
    }
  };

  const usable = (data: TlsData | undefined): data is TlsData => {
    if (!data) return false;
    try {
      const start = certificateStart(data.cert);
      const expiry = certificateExpiry(data.cert);
      const renewAt = expiry - (expiry - start) / 3;
      const names = certificateDnsNames(data.cert);
      return now() < renewAt && options.dnsNames.every((dnsName) => names.includes(dnsName));
    } catch {
      return false;
    }
  };

  const issue = async (previous: TlsData | undefined): Promise<TlsData> => {
    const bundle = await issueCertificates(options.dnsNames, options.validityDays ?? 365);
    const previousCa = previous ? splitPemBundle(previous.ca)[0] : undefined;
    const keepPrevious = previousCa !== undefined && stillValid(previousCa, now());
    const cas = keepPrevious ? [bundle.caCert, previousCa] : [bundle.caCert];
    return { cert: bundle.cert, key: bundle.key, ca: `${cas.map((pem) => pem.trim()).join("\n")}\n` };
  };

  /** The Secret's certificates, after issuing and storing new ones if needed; `issued` when this replica wrote. */
  const settle = async (): Promise<{ data: TlsData; issued: boolean }> => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const secret = await read();
      const current = tlsData(secret);
      if (usable(current)) return { data: current, issued: false };
      const data = await issue(current);
      const body = secretObject(namespace, name, data, secret?.metadata?.resourceVersion);
      try {
        if (secret) await api.replaceNamespacedSecret({ name, namespace, body });
        else await api.createNamespacedSecret({ namespace, body });
        options.log({
          msg: `issued a self-signed CA and serving certificate into Secret ${secretName}`,
          reason: current ? "expiring, or not for these DNS names" : secret ? "Secret empty" : "no Secret",
        });
        return { data, issued: true };
      } catch (error) {
        // Another replica wrote first: read again and use its certificates.
        if (httpStatus(error) !== 409) throw error;
      }
    }
    throw new Error(`Secret ${secretName} keeps changing under us; giving up for now`);
  };

  const refreshOnce = async () => {
    const { data, issued } = await settle();
    const filesChanged = writeIfChanged(options.certDir, data);
    if (options.webhookConfiguration) {
      const { patched, missing } = await injectCaBundle(
        options.kubeConfig,
        options.webhookConfiguration,
        data.ca,
      );
      if (patched.length > 0) {
        options.log({ msg: `caBundle injected into ${options.webhookConfiguration}`, kinds: patched });
      }
      if (missing.length > 0) {
        options.log({
          level: "warn",
          msg: `${options.webhookConfiguration} not found: caBundle not injected`,
          kinds: missing,
        });
      }
    }
    if (filesChanged) options.onChange?.();
    return { filesChanged, issued };
  };

  // One refresh at a time: a slow one (API server lagging) must not race the next tick on the files.
  let last: Promise<unknown> = Promise.resolve();
  const refresh = () => {
    const next = last.catch(() => {}).then(refreshOnce);
    last = next;
    return next;
  };

  try {
    await refresh();
  } catch (error) {
    // Without a certificate there is nothing to serve: fail start-up, in the API server's words.
    throw new Error(`selfSigned certificates in Secret ${secretName}: ${apiErrorMessage(error)}`);
  }
  const timer = setInterval(() => {
    refresh().catch((error: unknown) =>
      options.log({ level: "error", msg: `certificate refresh failed: ${apiErrorMessage(error)}` }),
    );
  }, options.checkIntervalMs ?? 600_000);
  timer.unref();
  return { refresh, stop: () => clearInterval(timer) };
}

function stillValid(pem: string, now: number): boolean {
  try {
    return certificateExpiry(pem) > now;
  } catch {
    return false;
  }
}

function tlsData(secret: V1Secret | undefined): TlsData | undefined {
  const data = secret?.data ?? {};
  const decode = (key: string) => (data[key] ? Buffer.from(data[key], "base64").toString("utf8") : undefined);
  const cert = decode(certFiles.cert);
  const key = decode(certFiles.key);
  const ca = decode(certFiles.ca);
  return cert && key && ca ? { cert, key, ca } : undefined;
}

function secretObject(namespace: string, name: string, data: TlsData, resourceVersion?: string): V1Secret {
  const encode = (text: string) => Buffer.from(text).toString("base64");
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "kubernetes.io/tls",
    metadata: {
      name,
      namespace,
      labels: { "app.kubernetes.io/managed-by": "module-admission" },
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    data: {
      [certFiles.cert]: encode(data.cert),
      [certFiles.key]: encode(data.key),
      [certFiles.ca]: encode(data.ca),
    },
  };
}

/** Writes the files the server reads, each replaced whole (rename), only when they differ. */
function writeIfChanged(dir: string, data: TlsData): boolean {
  const files: [string, string][] = [
    [certFiles.ca, data.ca],
    [certFiles.key, data.key],
    [certFiles.cert, data.cert],
  ];
  const changed = files.filter(([file, content]) => readOrEmpty(join(dir, file)) !== content);
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of changed) {
    writeFileSync(join(dir, `${file}.tmp`), content, { mode: 0o600 });
    renameSync(join(dir, `${file}.tmp`), join(dir, file));
  }
  return changed.length > 0;
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
