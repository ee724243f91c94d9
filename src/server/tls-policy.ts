import { constants } from "node:crypto";

/**
 * The TLS the webhook speaks, applied to the server and to every reloaded certificate: TLS 1.2 or
 * newer; for TLS 1.2 only ECDHE key exchange (forward secrecy) with AES-GCM or ChaCha20-Poly1305 (the
 * API server's Go client offers these first), TLS 1.3's own AEAD suites; no renegotiation, which a
 * client could use to make the server redo handshakes at will.
 */
export const tlsPolicy = {
  minVersion: "TLSv1.2",
  ciphers: [
    "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
    "ECDHE-ECDSA-AES128-GCM-SHA256",
    "ECDHE-RSA-AES128-GCM-SHA256",
    "ECDHE-ECDSA-AES256-GCM-SHA384",
    "ECDHE-RSA-AES256-GCM-SHA384",
    "ECDHE-ECDSA-CHACHA20-POLY1305",
    "ECDHE-RSA-CHACHA20-POLY1305",
  ].join(":"),
  secureOptions: constants.SSL_OP_NO_RENEGOTIATION,
} as const;
