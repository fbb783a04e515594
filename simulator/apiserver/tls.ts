import { constants, generateKeyPairSync, KeyObject, privateEncrypt, randomBytes } from "node:crypto";
import { md, pki } from "node-forge";

export interface ServingCertificates {
  /** PEM of the self-signed CA clients trust (kubeconfig `certificate-authority-data`). */
  caCert: string;
  /** PEM chain the server presents: serving certificate for 127.0.0.1/localhost. */
  cert: string;
  key: string;
}

/** An RSA key pair as node-forge takes it, and the private key as Node's crypto takes it. */
interface Keys extends pki.rsa.KeyPair {
  native: KeyObject;
}

/**
 * Keys come from Node's native generator (fast); node-forge only assembles the X.509 certificates,
 * which Node cannot do itself. RSA keeps every client happy (Go, OpenSSL, undici).
 */
function rsaKeys(): Keys {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const forgeKey = pki.privateKeyFromPem(privateKey.export({ type: "pkcs1", format: "pem" }).toString());
  return { privateKey: forgeKey, publicKey: pki.setRsaPublicKey(forgeKey.n, forgeKey.e), native: privateKey };
}

/** DER of a SHA-256 DigestInfo up to the digest (RFC 8017 section 9.2, note 1). */
const SHA256_DIGEST_INFO = Buffer.from("3031300d060960864801650304020105000420", "hex");

/**
 * The signer node-forge's `sign` calls with the digest of what it signs: the RSASSA-PKCS1-v1_5
 * signature node-forge would compute, by Node's OpenSSL (node-forge's own RSA in JavaScript took some
 * 0.1 s per simulator start).
 */
function nativeSigner(key: KeyObject): pki.rsa.PrivateKey {
  return {
    sign: (digest: md.MessageDigest) =>
      privateEncrypt(
        { key, padding: constants.RSA_PKCS1_PADDING },
        Buffer.concat([SHA256_DIGEST_INFO, Buffer.from(digest.digest().getBytes(), "binary")]),
      ).toString("binary"),
  } as unknown as pki.rsa.PrivateKey;
}

/**
 * The CA's and the server's key pairs, drawn once per process: two 2048-bit keys cost some 0.4 s of
 * CPU, paid again by every simulator a test suite starts. Each simulator still gets certificates of its
 * own under a CA name of its own, so a client that trusts one simulator's CA finds no issuer for
 * another's serving certificate: simulators never trust each other's certificates.
 */
let processKeys: { ca: Keys; server: Keys } | undefined;

function serial(): string {
  // Positive, 16 random bytes, as RFC 5280 recommends.
  return "01" + randomBytes(15).toString("hex");
}

/** A certificate for `keys`, valid from a minute ago for a year, signed by `issuerKey`. */
function signedCertificate(
  keys: pki.rsa.KeyPair,
  subject: pki.CertificateField[],
  issuer: pki.CertificateField[],
  extensions: object[],
  issuerKey: KeyObject,
  now: Date,
): pki.Certificate {
  const cert = pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + 365 * 24 * 3600_000);
  cert.setSubject(subject);
  cert.setIssuer(issuer);
  cert.setExtensions(extensions);
  cert.sign(nativeSigner(issuerKey), md.sha256.create());
  return cert;
}

export function generateServingCertificates(
  hosts: string[] = ["127.0.0.1", "localhost"],
): ServingCertificates {
  const now = new Date();
  processKeys ??= { ca: rsaKeys(), server: rsaKeys() };
  const caKeys = processKeys.ca;
  const caSubject = [
    { name: "commonName", value: `openshift-simulator-ca-${randomBytes(8).toString("hex")}` },
  ];
  const ca = signedCertificate(
    caKeys,
    caSubject,
    caSubject,
    [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      { name: "subjectKeyIdentifier" },
    ],
    caKeys.native,
    now,
  );
  const serverKeys = processKeys.server;
  const server = signedCertificate(
    serverKeys,
    [{ name: "commonName", value: "openshift-simulator" }],
    caSubject,
    [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: hosts.map((h) => (/^[\d.]+$|:/.test(h) ? { type: 7, ip: h } : { type: 2, value: h })),
      },
      { name: "authorityKeyIdentifier", keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
    ],
    caKeys.native,
    now,
  );

  return {
    caCert: pki.certificateToPem(ca),
    cert: pki.certificateToPem(server),
    key: pki.privateKeyToPem(serverKeys.privateKey),
  };
}
