/**
 * The RSA key lives with the Windows pool (components/windows-node-pool/rsa-private-key.ts). This path
 * stays because stacks deployed before the move hold `RsaPrivateKey` providers whose serialized text
 * requires `dist/provider/private-key/rsa-private-key.js` (test/public-api.test.ts loads it).
 */
export {
  ALLOWED_RSA_BITS,
  publicKeyFingerprint,
  RsaPrivateKey,
  rsaPrivateKeyProvider,
  type RsaPrivateKeyArgs,
  type RsaPrivateKeyInputs,
  type RsaPrivateKeyOutputs,
} from "../../components/windows-node-pool/rsa-private-key";
