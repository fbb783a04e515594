import { generateKeyPairSync, randomBytes } from "node:crypto";
import { md, pki } from "node-forge";

export interface ServingCertificates {
  /** PEM of the self-signed CA clients trust (kubeconfig `certificate-authority-data`). */
  caCert: string;
  /** PEM chain the server presents: serving certificate for 127.0.0.1/localhost. */
  cert: string;
  key: string;
}

/**
 * Keys come from Node's native generator (fast); node-forge only assembles and signs the X.509
 * certificates, which Node cannot do itself. RSA keeps every client happy (Go, OpenSSL, undici).
 */
function rsaKeys(): pki.rsa.KeyPair {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const forgeKey = pki.privateKeyFromPem(privateKey.export({ type: "pkcs1", format: "pem" }).toString());
  return { privateKey: forgeKey, publicKey: pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
}

function serial(): string {
  // Positive, 16 random bytes, as RFC 5280 recommends.
  return "01" + randomBytes(15).toString("hex");
}

export function generateServingCertificates(
  hosts: string[] = ["127.0.0.1", "localhost"],
): ServingCertificates {
  const now = new Date();
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now.getTime() + 365 * 24 * 3600_000);

  const caKeys = rsaKeys();
  const ca = pki.createCertificate();
  ca.publicKey = caKeys.publicKey;
  ca.serialNumber = serial();
  ca.validity.notBefore = notBefore;
  ca.validity.notAfter = notAfter;
  const caSubject = [{ name: "commonName", value: "openshift-simulator-ca" }];
  ca.setSubject(caSubject);
  ca.setIssuer(caSubject);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  ca.sign(caKeys.privateKey, md.sha256.create());

  const serverKeys = rsaKeys();
  const server = pki.createCertificate();
  server.publicKey = serverKeys.publicKey;
  server.serialNumber = serial();
  server.validity.notBefore = notBefore;
  server.validity.notAfter = notAfter;
  server.setSubject([{ name: "commonName", value: "openshift-simulator" }]);
  server.setIssuer(caSubject);
  server.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: hosts.map((h) => (/^[\d.]+$|:/.test(h) ? { type: 7, ip: h } : { type: 2, value: h })),
    },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  server.sign(caKeys.privateKey, md.sha256.create());

  return {
    caCert: pki.certificateToPem(ca),
    cert: pki.certificateToPem(server),
    key: pki.privateKeyToPem(serverKeys.privateKey),
  };
}
