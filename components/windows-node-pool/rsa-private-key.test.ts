import * as assert from "node:assert/strict";
import { createPrivateKey } from "node:crypto";
import { rsaPrivateKeyProvider } from "./rsa-private-key";

describe("RsaPrivateKey provider", () => {
  it("generates an RSA key once and replaces it only when the size changes", async () => {
    const created = await rsaPrivateKeyProvider.create!({ bits: 2048 });
    const outs = created.outs!;
    assert.match(outs.privateKeyPem, /^-----BEGIN RSA PRIVATE KEY-----/);
    assert.equal(createPrivateKey(outs.privateKeyPem).asymmetricKeyDetails?.modulusLength, 2048);
    assert.equal(created.id, outs.publicKeyFingerprint);
    const same = await rsaPrivateKeyProvider.diff!(created.id, outs, { bits: 2048 });
    assert.deepEqual(same, { changes: false, replaces: [] });
    const bigger = await rsaPrivateKeyProvider.diff!(created.id, outs, { bits: 4096 });
    assert.deepEqual(bigger, { changes: true, replaces: ["bits"] });
  });

  it("rejects key sizes other than 2048, 3072 and 4096", async () => {
    const result = await rsaPrivateKeyProvider.check!({} as never, { bits: 1024 });
    assert.deepEqual(
      result.failures?.map((f) => f.property),
      ["bits"],
    );
  });
});
