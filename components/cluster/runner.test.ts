/**
 * Where the program runs, as a pod learns it: its node from the downward API ($NODE_NAME, from
 * `spec.nodeName`) or from its own Pod (named by $POD_NAME or $HOSTNAME, in $POD_NAMESPACE or its
 * service account's namespace, client-go inClusterClientConfig.Namespace), and that node's pool from the
 * rendered config its daemon was given (MCO pkg/controller/render getMachineConfigHashedName names it
 * `rendered-<pool>-<hash>`).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { poolOfRenderedConfig } from "../../primitives/openshift";
import { inClusterKubeconfig, SERVICE_ACCOUNT_DIR_ENV } from "../../provider/dynamic/credentials";
import type { KubeObject, ResourceKind } from "../../provider/waiting/kinds";
import type { ClusterSnapshot } from "./cluster-snapshot";
import { runnerDrainedWarning, runnerPlace } from "./runner";

const HASH = "0123456789abcdef0123456789abcdef";

describe("the runner's place: its pod, its node and the node's pool", () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "runner-"));
    fs.writeFileSync(path.join(dir, "token"), "t");
    fs.writeFileSync(path.join(dir, "namespace"), "pulumi\n");
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const pod = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    KUBERNETES_SERVICE_HOST: "10.0.0.1",
    KUBERNETES_SERVICE_PORT: "443",
    [SERVICE_ACCOUNT_DIR_ENV]: dir,
    HOSTNAME: "stack-workspace-0",
    ...extra,
  });
  const kubeconfig = () => inClusterKubeconfig(pod())!.text!;

  /** A cluster of these objects, by `<plural>/<namespace>/<name>`; records what is asked. */
  function cluster(objects: Record<string, KubeObject | Error>) {
    const asked: string[] = [];
    const snapshot = {
      object: async (kind: ResourceKind, name: string, namespace?: string) => {
        const key = `${kind.plural}/${namespace ?? ""}/${name}`;
        asked.push(key);
        const found = objects[key];
        if (found instanceof Error) throw found;
        return found;
      },
    } as unknown as ClusterSnapshot;
    return { snapshot, asked };
  }
  const node = (name: string, annotations: Record<string, string>): KubeObject => ({
    metadata: { name, annotations },
  });

  it("reads the pool off the rendered config a pool's render names, and nothing off another name", () => {
    assert.equal(poolOfRenderedConfig(`rendered-worker-${HASH}`), "worker");
    assert.equal(poolOfRenderedConfig(`rendered-infra-gpu-${HASH}`), "infra-gpu");
    assert.equal(poolOfRenderedConfig(`rendered-worker-${HASH.slice(1)}`), undefined);
    assert.equal(poolOfRenderedConfig(`99-worker-${HASH}`), undefined);
    assert.equal(poolOfRenderedConfig(undefined), undefined);
  });

  it("finds the node through its own Pod, named by its hostname in its service account's namespace", async () => {
    const { snapshot, asked } = cluster({
      "pods/pulumi/stack-workspace-0": { metadata: { name: "stack-workspace-0" }, spec: { nodeName: "n1" } },
      "nodes//n1": node("n1", {
        "machineconfiguration.openshift.io/desiredConfig": `rendered-infra-${HASH}`,
        "machineconfiguration.openshift.io/currentConfig": `rendered-worker-${HASH}`,
      }),
    });
    assert.deepEqual(await runnerPlace(snapshot, kubeconfig(), pod()), {
      pod: "pulumi/stack-workspace-0",
      node: "n1",
      pool: "infra",
    });
    assert.deepEqual(asked, ["pods/pulumi/stack-workspace-0", "nodes//n1"]);
  });

  it("takes $POD_NAME and $POD_NAMESPACE before the hostname and the namespace file, and $NODE_NAME before the Pod", async () => {
    const { snapshot, asked } = cluster({
      "pods/ops/runner": { metadata: { name: "runner" }, spec: { nodeName: "n2" } },
      "nodes//n2": node("n2", {
        "machineconfiguration.openshift.io/currentConfig": `rendered-worker-${HASH}`,
      }),
      "nodes//n3": node("n3", {}),
    });
    assert.deepEqual(
      await runnerPlace(snapshot, kubeconfig(), pod({ POD_NAME: "runner", POD_NAMESPACE: "ops" })),
      {
        pod: "ops/runner",
        node: "n2",
        pool: "worker",
      },
    );
    assert.deepEqual(await runnerPlace(snapshot, kubeconfig(), pod({ NODE_NAME: "n3" })), { node: "n3" });
    assert.deepEqual(asked, ["pods/ops/runner", "nodes//n2", "nodes//n3"]);
  });

  it("says nothing outside a pod, in a pod of another cluster, or when the node cannot be told", async () => {
    const { snapshot, asked } = cluster({
      "pods/pulumi/stack-workspace-0": new Error("pods is forbidden"),
      "pods/pulumi/unscheduled": { metadata: { name: "unscheduled" }, spec: {} },
    });
    assert.equal(await runnerPlace(snapshot, kubeconfig(), pod({ KUBERNETES_SERVICE_HOST: "" })), undefined);
    const elsewhere = kubeconfig().replace("https://10.0.0.1:443", "https://api.other.example.com:6443");
    assert.equal(await runnerPlace(snapshot, elsewhere, pod()), undefined);
    assert.deepEqual(asked, [], "nothing asked of a cluster the runner is not in");
    assert.equal(await runnerPlace(snapshot, kubeconfig(), pod()), undefined, "a Pod it may not read");
    assert.equal(await runnerPlace(snapshot, kubeconfig(), pod({ HOSTNAME: "unscheduled" })), undefined);
    assert.equal(await runnerPlace(snapshot, kubeconfig(), pod({ HOSTNAME: "" })), undefined);
  });

  it("words the warning with the pod when it was read, else the node alone", () => {
    assert.match(
      runnerDrainedWarning("infra", { pod: "pulumi/w-0", node: "n1", pool: "infra" }),
      /^pool infra: this program runs in pod pulumi\/w-0 on node n1, which this change drains: .*docs\/in-cluster\.md\)$/,
    );
    assert.match(
      runnerDrainedWarning("infra", { node: "n1" }),
      /^pool infra: this program runs on node n1, which/,
    );
  });
});
