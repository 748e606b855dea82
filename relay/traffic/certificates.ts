import { generateKeyPairSync, randomBytes, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import forge from "node-forge";

/**
 * The development certificate authority and the broker's certificate it signs, made once under a
 * directory (npm start: $STATE_DIR/traffic-tls). Node's crypto makes keys but not X.509
 * certificates: node-forge builds and signs them. A client trusts the broker by trusting ca.crt
 * (the C++ SDK checks the system store: docs/traffic.md says how to add it on Debian).
 */

export interface DevCertificates {
  caFile: string;
  certFile: string;
  keyFile: string;
  /** True when they were made now (not found from an earlier start). */
  made: boolean;
}

const DAY_MS = 86_400_000;
/** Renewed a week before it ends, at a start. */
const RENEW_BEFORE_MS = 7 * DAY_MS;

/** The CA and a server certificate for `hosts` (names and IP addresses), made unless valid ones exist. */
export function ensureDevCertificates(
  dir: string,
  hosts: string[] = ["localhost", "127.0.0.1", "::1"],
): DevCertificates {
  const caFile = path.join(dir, "ca.crt");
  const certFile = path.join(dir, "server.crt");
  const keyFile = path.join(dir, "server.key");
  const caKeyFile = path.join(dir, "ca.key");
  if ([caFile, certFile, keyFile].every(existsSync) && stillGood(certFile, hosts)) {
    return { caFile, certFile, keyFile, made: false };
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const now = Date.now();
  let ca: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey };
  if (existsSync(caFile) && existsSync(caKeyFile) && stillGood(caFile, [])) {
    ca = {
      cert: forge.pki.certificateFromPem(readFileSync(caFile, "utf8")),
      key: forge.pki.privateKeyFromPem(readFileSync(caKeyFile, "utf8")) as forge.pki.rsa.PrivateKey,
    };
  } else {
    const caKeys = rsaKeys();
    const cert = forge.pki.createCertificate();
    cert.publicKey = caKeys.publicKey;
    cert.serialNumber = serial();
    cert.validity.notBefore = new Date(now - DAY_MS);
    cert.validity.notAfter = new Date(now + 5 * 365 * DAY_MS);
    const name = [
      { name: "commonName", value: "Windsock development CA" },
      { name: "organizationName", value: "Windsock (development)" },
    ];
    cert.setSubject(name);
    cert.setIssuer(name);
    cert.setExtensions([
      { name: "basicConstraints", cA: true, critical: true, pathLenConstraint: 0 },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
      { name: "subjectKeyIdentifier" },
    ]);
    cert.sign(caKeys.privateKey, forge.md.sha256.create());
    ca = { cert, key: caKeys.privateKey };
    writeFileSync(caKeyFile, forge.pki.privateKeyToPem(ca.key), { mode: 0o600 });
    writeFileSync(caFile, forge.pki.certificateToPem(cert));
  }
  const keys = rsaKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(now - DAY_MS);
  // Under 398 days: what TLS clients accept of a server certificate.
  cert.validity.notAfter = new Date(now + 397 * DAY_MS);
  cert.setSubject([{ name: "commonName", value: hosts[0] ?? "localhost" }]);
  cert.setIssuer(ca.cert.subject.attributes);
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: hosts.map((host) =>
        /^[\d.]+$|:/.test(host) ? { type: 7, ip: host } : { type: 2, value: host },
      ),
    },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.cert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(ca.key, forge.md.sha256.create());
  writeFileSync(keyFile, forge.pki.privateKeyToPem(keys.privateKey), { mode: 0o600 });
  writeFileSync(certFile, forge.pki.certificateToPem(cert));
  return { caFile, certFile, keyFile, made: true };
}

/** RSA 2048 keys made by Node (forge's own generator takes seconds), handed to forge. */
function rsaKeys(): { publicKey: forge.pki.rsa.PublicKey; privateKey: forge.pki.rsa.PrivateKey } {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
  return { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
}

/** A positive serial of 16 random bytes (the high bit cleared). */
const serial = () => {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString("hex");
};

function stillGood(file: string, hosts: string[]): boolean {
  try {
    const cert = new X509Certificate(readFileSync(file));
    if (Date.parse(cert.validTo) - Date.now() < RENEW_BEFORE_MS) return false;
    return hosts.every(
      (host) => (/^[\d.]+$|:/.test(host) ? cert.checkIP(host) : cert.checkHost(host)) !== undefined,
    );
  } catch {
    return false;
  }
}
