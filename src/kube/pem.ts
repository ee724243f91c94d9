import { X509Certificate } from "node:crypto";

/** The certificates of a PEM bundle, each as its own PEM block. */
export function splitPemBundle(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

export function certificateExpiry(pem: string): number {
  return new Date(new X509Certificate(pem).validTo).getTime();
}

export function certificateStart(pem: string): number {
  return new Date(new X509Certificate(pem).validFrom).getTime();
}

/** The DNS names a certificate is valid for (its subjectAltName). */
export function certificateDnsNames(pem: string): string[] {
  return (new X509Certificate(pem).subjectAltName ?? "")
    .split(", ")
    .filter((entry) => entry.startsWith("DNS:"))
    .map((entry) => entry.slice(4));
}
