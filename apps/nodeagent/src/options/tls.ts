/**
 * TLS names the node agent accepts: `--tls-min-version` values and `--tls-cipher-suites` names
 * (IANA names as Go spells them), with the OpenSSL names Node's `tls` module wants.
 *
 * @see staging/src/k8s.io/component-base/cli/flag/ciphersuites_flag.go in kubernetes/kubernetes v1.23
 */

/** `--tls-min-version` values → Node's `minVersion`. */
export const tlsVersions: Readonly<Record<"VersionTLS10" | "VersionTLS11" | "VersionTLS12" | "VersionTLS13", "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3">> = Object.freeze({
  VersionTLS10: "TLSv1",
  VersionTLS11: "TLSv1.1",
  VersionTLS12: "TLSv1.2",
  VersionTLS13: "TLSv1.3",
});

/**
 * Preferred cipher suites → OpenSSL name (`""` for TLS 1.3 suites, which Node configures through
 * `ciphersuites` names equal to the IANA names).
 */
export const preferredCipherSuites: Readonly<Record<string, string>> = Object.freeze({
  TLS_AES_128_GCM_SHA256: "TLS_AES_128_GCM_SHA256",
  TLS_AES_256_GCM_SHA384: "TLS_AES_256_GCM_SHA384",
  TLS_CHACHA20_POLY1305_SHA256: "TLS_CHACHA20_POLY1305_SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
});

/** Insecure cipher suites (accepted, as Kubernetes accepts them) → OpenSSL name. */
export const insecureCipherSuites: Readonly<Record<string, string>> = Object.freeze({
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: "ECDHE-ECDSA-AES128-SHA256",
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: "ECDHE-ECDSA-RC4-SHA",
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: "ECDHE-RSA-DES-CBC3-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: "ECDHE-RSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: "ECDHE-RSA-RC4-SHA",
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: "DES-CBC3-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA256: "AES128-SHA256",
  TLS_RSA_WITH_RC4_128_SHA: "RC4-SHA",
});

/** Every accepted cipher suite (preferred, then insecure; OpenSSL 3 may not offer RC4 at all) → OpenSSL name. */
export const cipherSuiteOpenSSLNames: Readonly<Record<string, string>> = Object.freeze({ ...preferredCipherSuites, ...insecureCipherSuites });

/** Whether `name` is a cipher suite `--tls-cipher-suites` accepts. */
export function isKnownCipherSuite(name: string): boolean {
  return Object.hasOwn(cipherSuiteOpenSSLNames, name);
}
