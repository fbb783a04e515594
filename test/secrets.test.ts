import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import * as fs from "node:fs";
import { InfraNodePool, MachineConfig, WindowsNodePool } from "../index";
import { mocks } from "./mocks";
import { runProgram } from "./program";

const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const PEM = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs1",
  format: "pem",
}) as string;
const KUBECONFIG = fs.readFileSync(process.env.KUBECONFIG!, "utf8");

/** Every string in a value, except those inside Pulumi secret values. */
function plainStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => plainStrings(v, out));
  else if (value && typeof value === "object") {
    if ((value as Record<string, unknown>)[SECRET_SIG] !== undefined) return out;
    Object.values(value).forEach((v) => plainStrings(v, out));
  }
  return out;
}

function assertNowhereInPlaintext(secret: string, what: string): void {
  // A distinctive line of the secret, so that short common fragments cannot match by chance.
  const probe = secret.split("\n").find((line) => line.length > 20 && !line.startsWith("-----"))!;
  for (const resource of mocks.resources) {
    const leaked = plainStrings(resource.inputs).filter((s) => s.includes(probe));
    assert.deepEqual(leaked, [], `${what} appears in plaintext in ${resource.type} ${resource.name}`);
  }
}

describe("secrets stay secret under the mock runtime", () => {
  for (const [how, key, kubeconfig] of [
    ["given as secrets", pulumi.secret(PEM), pulumi.secret(KUBECONFIG)],
    ["given as plain strings", PEM, KUBECONFIG],
  ] as const) {
    it(`the private key and the kubeconfig, ${how}, appear only inside secret values`, async () => {
      await runProgram(() => {
        new WindowsNodePool("win", { zones: ["us-east-2a"], privateKey: key, kubeconfig });
        new InfraNodePool("infra", { zones: ["us-east-2a"], kubeconfig });
        new MachineConfig("99-infra-x", {
          role: "infra",
          files: [{ path: "/etc/x", contents: { text: "x" } }],
          kubeconfig,
        });
      });
      assert.ok(mocks.resources.some((r) => r.type === "kubernetes:core/v1:Secret"));
      assert.ok(mocks.resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic:")).length >= 5);
      assertNowhereInPlaintext(PEM, "the private key");
      assertNowhereInPlaintext(KUBECONFIG, "the kubeconfig");
    });
  }

  it("a generated key is declared secret in state", async () => {
    await runProgram(() => new WindowsNodePool("win", { zones: ["us-east-2a"] }));
    const key = mocks.resources.find((r) => r.type === "pulumi-nodejs:dynamic:RsaPrivateKey");
    assert.ok(key, "no generated key");
    assert.equal(
      key.inputs.privateKeyPem,
      undefined,
      "the key is created by the provider, never by the program",
    );
  });
});
