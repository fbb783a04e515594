import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { currentServer } from "../../provider/dynamic/credentials";
import { resetMocks, valueOf } from "../../test/mocks";
import { SharedArgs, waiting } from "./wait";

const A = "https://api.a.example.com:6443";
const B = "https://api.b.example.com:6443";
/** A kubeconfig whose current context `a` reaches A; its context `b` reaches B. */
const TWO_CONTEXTS = `apiVersion: v1
kind: Config
clusters: [{ name: a, cluster: { server: "${A}" } }, { name: b, cluster: { server: "${B}" } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: a, context: { cluster: a, user: u } }, { name: b, context: { cluster: b, user: u } }]
current-context: a
`;
const ONLY_B = TWO_CONTEXTS.replace("current-context: a", "current-context: b");

/**
 * The waiters connect as the component's Kubernetes provider does, from its settings as pulumi-kubernetes'
 * Configure reads them (provider.go): issue 25, one cluster for the objects, the waits and the preview's reads.
 */
describe("the waiters' connection", () => {
  let parent: pulumi.ComponentResource;
  beforeEach(async () => {
    await resetMocks();
    parent = new pulumi.ComponentResource("test:index:Component", "c");
  });
  const serverOf = async (args: SharedArgs) =>
    currentServer(await valueOf(waiting(args, parent)!.kubeconfig));

  it("is the provider's kubeconfig, given as content or as a file's path, with its context", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "wait-")), "kubeconfig");
    fs.writeFileSync(file, TWO_CONTEXTS);
    try {
      assert.equal(
        await serverOf({ provider: new k8s.Provider("content", { kubeconfig: TWO_CONTEXTS }) }),
        A,
      );
      assert.equal(await serverOf({ provider: new k8s.Provider("path", { kubeconfig: file }) }), A);
      const context = new k8s.Provider("context", { kubeconfig: file, context: "b" });
      assert.equal(await serverOf({ provider: context }), B);
      assert.equal(await serverOf({ provider: context, kubeconfig: ONLY_B }), B, "the same cluster");
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });

  it("fails at once, naming the provider, when its kubeconfig is a list of files as $KUBECONFIG holds them", async () => {
    // pulumi-kubernetes reads it as content (provider/pkg/provider/util.go, parseKubeconfigString).
    const provider = new k8s.Provider("list", { kubeconfig: "/home/me/.kube/config:/tmp/b.yaml" });
    await assert.rejects(valueOf(waiting({ provider }, parent)!.check), (e: unknown) => {
      const error = e as pulumi.InputPropertyError;
      assert.equal(error.propertyPath, "provider");
      assert.match(error.reason, /^the kubeconfig of the component's Kubernetes provider is a list of files/);
      return true;
    });
  });

  it("is the kubeconfig of a provider in the component's options (or its parent's), which its objects go through", async () => {
    const provider = new k8s.Provider("option", { kubeconfig: ONLY_B });
    const viaOptions = new pulumi.ComponentResource(
      "test:index:Component",
      "o",
      {},
      { providers: [provider] },
    );
    const child = new pulumi.ComponentResource("test:index:Component", "child", {}, { parent: viaOptions });
    for (const [label, component] of [
      ["its options", viaOptions],
      ["its parent's options", child],
    ] as const) {
      assert.equal(currentServer(await valueOf(waiting({}, component)!.kubeconfig)), B, label);
    }
    const argument = new k8s.Provider("argument", { kubeconfig: TWO_CONTEXTS });
    assert.equal(currentServer(await valueOf(waiting({ provider: argument }, viaOptions)!.kubeconfig)), A);
  });

  it("fails at once, naming both API servers, when the kubeconfig given reaches another cluster", async () => {
    const provider = new k8s.Provider("a", { kubeconfig: TWO_CONTEXTS });
    await assert.rejects(valueOf(waiting({ provider, kubeconfig: ONLY_B }, parent)!.check), (e: unknown) => {
      const error = e as pulumi.InputPropertyError;
      assert.equal(error.propertyPath, "kubeconfig");
      assert.match(
        error.reason,
        new RegExp(`^reaches ${B}/, but the component's Kubernetes provider reaches ${A}/`),
      );
      return true;
    });
  });

  it("is the default provider's kubernetes: config when the stack sets it, else $KUBECONFIG", async () => {
    const saved = pulumi.runtime.allConfig();
    try {
      pulumi.runtime.setConfig("kubernetes:kubeconfig", TWO_CONTEXTS);
      pulumi.runtime.setConfig("kubernetes:context", "b");
      assert.equal(await serverOf({}), B);
      await assert.rejects(
        valueOf(waiting({ kubeconfig: TWO_CONTEXTS }, parent)!.check),
        /the stack's kubernetes: config reaches/,
      );
    } finally {
      pulumi.runtime.setAllConfig(saved);
    }
    // Without that config, $KUBECONFIG (test/fixtures/kubeconfig.yaml) is the default provider's.
    await assert.rejects(
      valueOf(waiting({ kubeconfig: TWO_CONTEXTS }, parent)!.check),
      /kubeconfig: reaches https:\/\/api\.a\.example\.com:6443\/, but the file .*kubeconfig\.yaml \(from \$KUBECONFIG or ~\/\.kube\/config\), which the default Kubernetes provider connects with, reaches https:\/\/127\.0\.0\.1:1\//,
    );
  });
});
