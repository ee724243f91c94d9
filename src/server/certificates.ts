import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generate } from "selfsigned";
import type { Logger } from "../base/log.js";

export interface CertificateBundle {
  /** PEM of the CA that signed the serving certificate: the caBundle of the webhook configurations. */
  caCert: string;
  caKey: string;
  cert: string;
  key: string;
}

/** The names a webhook Service answers to, plus the local ones for development. */
export function serviceDnsNames(service: string, namespace: string): string[] {
  return [
    "localhost",
    service,
    `${service}.${namespace}`,
    `${service}.${namespace}.svc`,
    `${service}.${namespace}.svc.cluster.local`,
  ];
}

/** A fresh CA and a serving certificate it signed, for the given DNS names and 127.0.0.1 / ::1. */
export async function issueCertificates(dnsNames: string[], validityDays = 365): Promise<CertificateBundle> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + validityDays * 86_400_000);
  const common = { keyType: "ec" as const, algorithm: "sha256" as const, notBeforeDate, notAfterDate };
  const ca = await generate([{ name: "commonName", value: "module-admission-ca" }], {
    ...common,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const serving = await generate([{ name: "commonName", value: dnsNames[0] ?? "localhost" }], {
    ...common,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          ...dnsNames.map((value) => ({ type: 2 as const, value })),
          { type: 7 as const, ip: "127.0.0.1" },
          { type: 7 as const, ip: "::1" },
        ],
      },
    ],
  });
  return { caCert: ca.cert, caKey: ca.private, cert: serving.cert, key: serving.private };
}

/** File names of a kubernetes.io/tls Secret (and cert-manager's), as mounted in --cert-dir. */
export const certFiles = { cert: "tls.crt", key: "tls.key", ca: "ca.crt" } as const;

/**
 * The serving certificate from `dir`; when the directory holds none, a new CA and serving certificate
 * are written there first (`created: true`), so that `npm start` serves TLS without any setup.
 */
export async function ensureCertDir(dir: string, dnsNames: string[]): Promise<{ created: boolean }> {
  if (existsSync(join(dir, certFiles.cert)) && existsSync(join(dir, certFiles.key)))
    return { created: false };
  const bundle = await issueCertificates(dnsNames);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, certFiles.ca), bundle.caCert);
  writeFileSync(join(dir, "ca.key"), bundle.caKey, { mode: 0o600 });
  writeFileSync(join(dir, certFiles.cert), bundle.cert);
  writeFileSync(join(dir, certFiles.key), bundle.key, { mode: 0o600 });
  return { created: true };
}

export function readServingCertificate(dir: string): { cert: string; key: string } {
  return {
    cert: readFileSync(join(dir, certFiles.cert), "utf8"),
    key: readFileSync(join(dir, certFiles.key), "utf8"),
  };
}

/** ensureCertDir, saying so in the log when it had to generate: `npm start` shows where its CA is. */
export async function ensureCertDirLogged(dir: string, dnsNames: string[], log: Logger): Promise<void> {
  const { created } = await ensureCertDir(dir, dnsNames);
  if (created)
    log({ msg: `no certificate in ${dir}: generated a CA (ca.crt) and a serving certificate there` });
}
