import * as pulumi from "@pulumi/pulumi";

/**
 * An RSA private key generated once, at create, and kept in Pulumi state as a secret: a key generated
 * while the program runs would change on every preview. Needs no provider plugin, so it works wherever
 * the program runs (including the local deploy harness). Dynamic providers are serialized with their
 * closure, so the crypto module is required inside the methods, and nothing the provider uses is read
 * through this module's exports: its serialized text then requires node:crypto alone, whatever path the
 * module has in the package.
 */

export interface RsaPrivateKeyInputs {
  bits: number;
}

export interface RsaPrivateKeyOutputs extends RsaPrivateKeyInputs {
  /** PKCS#1 PEM ("-----BEGIN RSA PRIVATE KEY-----"), the form WMCO's docs create with ssh-keygen. */
  privateKeyPem: string;
  /** SHA-256 of the public key (DER), to tell keys apart without revealing them. */
  publicKeyFingerprint: string;
}

/** `SHA256:<base64>` of a private key's public half (DER), as ssh-keygen -l prints fingerprints. */
export function publicKeyFingerprint(privateKeyPem: string): string {
  const crypto: typeof import("node:crypto") = require("node:crypto");
  const der = crypto.createPublicKey(privateKeyPem).export({ type: "spki", format: "der" });
  return `SHA256:${crypto.createHash("sha256").update(der).digest("base64").replace(/=+$/, "")}`;
}

// Exported by name below, so the provider reads the local binding, not `exports`.
const ALLOWED_RSA_BITS = [2048, 3072, 4096] as const;
export { ALLOWED_RSA_BITS };

export const rsaPrivateKeyProvider: pulumi.dynamic.ResourceProvider<
  RsaPrivateKeyInputs,
  RsaPrivateKeyOutputs
> = {
  async check(_olds, news) {
    const bits = news.bits ?? 4096;
    if (!(ALLOWED_RSA_BITS as readonly number[]).includes(bits)) {
      return {
        failures: [{ property: "bits", reason: `bits must be one of ${ALLOWED_RSA_BITS.join(", ")}` }],
      };
    }
    return { inputs: { bits } };
  },

  async create(inputs) {
    const crypto: typeof import("node:crypto") = require("node:crypto");
    // Asynchronous: a 4096-bit key takes about a second, which must not stall other waits in the process.
    const privateKeyPem = await new Promise<string>((resolve, reject) =>
      crypto.generateKeyPair(
        "rsa",
        {
          modulusLength: inputs.bits,
          privateKeyEncoding: { type: "pkcs1", format: "pem" },
          publicKeyEncoding: { type: "spki", format: "pem" },
        },
        (error, _publicKey, privateKey) => (error ? reject(error) : resolve(privateKey)),
      ),
    );
    const fingerprint = publicKeyFingerprint(privateKeyPem);
    return { id: fingerprint, outs: { bits: inputs.bits, privateKeyPem, publicKeyFingerprint: fingerprint } };
  },

  async diff(_id, olds, news) {
    const replace = olds.bits !== news.bits;
    return { changes: replace, replaces: replace ? ["bits"] : [] };
  },
};

export interface RsaPrivateKeyArgs {
  /** Key size; default 4096. */
  bits?: pulumi.Input<number>;
}

export class RsaPrivateKey extends pulumi.dynamic.Resource {
  /** The key in PEM; a secret in state and in every output. */
  declare public readonly privateKeyPem: pulumi.Output<string>;
  declare public readonly publicKeyFingerprint: pulumi.Output<string>;

  constructor(name: string, args: RsaPrivateKeyArgs = {}, opts: pulumi.CustomResourceOptions = {}) {
    super(
      rsaPrivateKeyProvider,
      name,
      { bits: args.bits ?? 4096, privateKeyPem: undefined, publicKeyFingerprint: undefined },
      { ...opts, additionalSecretOutputs: ["privateKeyPem"] },
      undefined,
      "RsaPrivateKey",
    );
  }
}
