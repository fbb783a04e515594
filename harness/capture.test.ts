import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { KINDS } from "../provider/waiting/kinds";
import { Simulator } from "../simulator/simulator";
import { captureConsole } from "../test/console";
import { simulatorForSuite } from "../test/harness-simulator";
import { mockCluster } from "../testing";
import { forFixtures, main } from "./capture";

const WORKER_CONFIG = path.join(__dirname, "testdata", "worker-config");

describe("fixtures capture: what a program reads of a live cluster", function () {
  this.timeout(60_000);
  let sim: Simulator;
  let dir: string;
  const suite = simulatorForSuite("harness-capture-");
  before(() => ({ sim, dir } = suite));

  it("keeps exactly the objects the preview reads, a credential in a MachineConfig as a digest, byte-identical twice", async () => {
    const out = path.join(dir, "fixtures.yaml");
    // The cloud's answers are not the cluster's: those of the file it replaces are kept.
    const cloud = {
      invokes: { "aws:ec2/getAmi:getAmi": [{ result: { id: "ami-0a2b3c4d5e6f70812" } }] },
      arm: { "/subscriptions/s/locations?api-version=2022-12-01": { value: [] } },
    };
    fs.writeFileSync(out, JSON.stringify({ objects: [], ...cloud }));
    const args = ["capture", WORKER_CONFIG, "--kubeconfig", sim.kubeconfigPath, "--out", out];
    const first = await captureConsole(() => main(args));
    assert.equal(first.result, 0, first.output);
    const text = fs.readFileSync(out, "utf8");
    const { objects, invokes, arm } = parse(text) as {
      objects: Array<{ kind: string; metadata: Record<string, unknown>; spec?: Record<string, unknown> }>;
      invokes: unknown;
      arm: unknown;
    };
    assert.deepEqual({ invokes, arm }, cloud);
    // The MachineConfig's preview: the pool, the MCO's node disruption policy, and every node
    // configuration object a pool can render (rollout-impact.ts rolloutImpactIn).
    const configs = sim.store.list("machineconfiguration.openshift.io/v1", "MachineConfig");
    const rendered = (name: string) => name.startsWith("rendered-");
    assert.deepEqual(
      objects.map((o) => `${o.kind} ${o.metadata.name}`),
      [
        "MachineConfigPool worker",
        "MachineConfiguration cluster",
        ...configs
          .map((m) => m.metadata.name)
          .filter((name) => !rendered(name))
          .sort()
          .map((name) => `MachineConfig ${name}`),
      ].sort((a, b) => (a < b ? -1 : 1)),
    );
    for (const o of objects) {
      for (const volatile of ["resourceVersion", "uid", "managedFields", "creationTimestamp"])
        assert.equal(o.metadata[volatile], undefined, `${o.kind} ${String(o.metadata.name)} ${volatile}`);
    }
    // The pull secret of 00-worker, as every cluster's: compared as the content is, never written.
    const files = (
      objects.find((o) => o.metadata.name === "00-worker")!.spec as {
        config: { storage: { files: Array<{ path: string; contents: { source: string } }> } };
      }
    ).config.storage.files;
    const pullSecret = files.find((f) => f.path === "/var/lib/kubelet/config.json")!;
    assert.match(pullSecret.contents.source, /^data:,redacted%20sha256%3A[0-9a-f]{64}$/);
    assert.ok(!text.includes("auths"), "no registry credential in the file");
    const registries = files.find((f) => f.path === "/etc/containers/registries.conf")!;
    assert.match(registries.contents.source, /^data:,unqualified-search-registries/);
    assert.match(
      first.output,
      /objects the program reads, from the cluster of .* \(--kubeconfig\), written to /,
    );

    const second = await captureConsole(() => main(args));
    assert.equal(second.result, 0, second.output);
    assert.equal(fs.readFileSync(out, "utf8"), text);

    // Enough for the preview without the cluster: the testing mocks answer from the file what it said live.
    const mocks = await mockCluster(out, { preview: true });
    const program = path.join(WORKER_CONFIG, "index.ts");
    delete require.cache[require.resolve(program)];
    require(program);
    assert.deepEqual(await mocks.poolLines("worker"), [
      "pool worker: new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 12 min (file /etc/issue.d/banner.issue of 99-worker-banner)",
      // The program's waitTimeouts of 60s, against the estimate the captured pool gives.
      "pool worker: waitTimeouts (1m) is shorter than this change's estimate (about 12 min) and the MCO's drain timeout (1h, after which it reports a drain a PodDisruptionBudget holds): up can fail while the rollout goes on; give more, or leave it out (the default is twice the estimate, 30m at least)",
    ]);
  });

  it("leaves a Secret's data out, and what the API server alone sets", () => {
    const kept = forFixtures(KINDS.secret, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: "windows-user-data",
        namespace: "openshift-machine-api",
        resourceVersion: "12",
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{...}" },
      },
      type: "Opaque",
      data: { userData: "c2VjcmV0" },
      stringData: { extra: "secret" },
    });
    assert.deepEqual(kept, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "windows-user-data", namespace: "openshift-machine-api" },
      type: "Opaque",
    });
  });
});
