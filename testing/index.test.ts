import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { machineConfigPool } from "../builders/machineconfiguration/pool";
import { InfraNodePool, KubeletConfig } from "../index";
import { pendingPromises } from "../test/mocks";
import { loadFixtures } from "../harness/fixtures";
import { type Fixtures, mockCluster, valueOf } from ".";

const EXAMPLE_FIXTURES = path.join(__dirname, "..", "examples", "aws-infra-windows", "fixtures.yaml");
const AZURE_FIXTURES = path.join(__dirname, "..", "examples", "azure-infra-windows", "fixtures.yaml");

/** The example's cluster (what `fixtures capture` writes of the simulator's AWS cluster) with a 3-node infra pool. */
function clusterWithInfraPool(file: string): Fixtures {
  const example = parse(fs.readFileSync(EXAMPLE_FIXTURES, "utf8")) as Omit<Fixtures, "file">;
  // As the InfraNodePool declared it, once the MCO has rolled its first render out to 3 nodes.
  const pool = {
    ...machineConfigPool({ name: "infra", maxUnavailable: 1 }),
    status: { machineCount: 3, updatedMachineCount: 3, configuration: { name: "rendered-infra-0" } },
  };
  return { file, objects: [...example.objects, pool], invokes: example.invokes };
}

describe("@openshift-topology/pulumi/testing: a user's unit tests of their stack", function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "testing-"))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // mockCluster sets the stack's config process-wide, as Pulumi's setAllConfig does: the suites mocha
  // runs after this one in its worker get theirs back.
  const config = pulumi.runtime.allConfig();
  after(() => pulumi.runtime.setAllConfig(config));
  // A test process of these mocks exits 0: nothing the components started is left pending.
  afterEach(async () => assert.deepEqual(await pendingPromises(), []));

  it("answers the cluster reads from a fixtures file and records the objects and waiters declared", async () => {
    const cluster = await mockCluster(EXAMPLE_FIXTURES);
    const pool = new InfraNodePool("infra", { zones: ["us-east-2a", "us-east-2b"], replicas: 2 });
    assert.deepEqual(await valueOf(pool.machineSetNames), [
      "cluster-zbwlg-cbgq7-infra-us-east-2a",
      "cluster-zbwlg-cbgq7-infra-us-east-2b",
    ]);
    const machineSet = await cluster.object(
      "MachineSet",
      "cluster-zbwlg-cbgq7-infra-us-east-2b",
      "openshift-machine-api",
    );
    const spec = machineSet.manifest.spec as {
      replicas: number;
      template: { spec: { providerSpec: { value: { ami: { id: string }; subnet: unknown } } } };
    };
    assert.equal(spec.replicas, 1);
    // The image the installer's worker MachineSet in the fixtures boots, its subnet by the zone's name.
    assert.deepEqual(spec.template.spec.providerSpec.value.ami, { id: "ami-0c4d1f6a9e2b37c85" });
    assert.deepEqual(spec.template.spec.providerSpec.value.subnet, {
      filters: [{ name: "tag:Name", values: ["cluster-zbwlg-cbgq7-subnet-private-us-east-2b"] }],
    });
    assert.equal(machineSet.resource, "infra-us-east-2b");
    assert.deepEqual(
      (await cluster.objects("MachineConfigPool")).map((o) => o.name),
      ["infra"],
    );
    assert.deepEqual(
      (await cluster.waiters()).map((w) => `${w.type} ${w.name}`),
      [
        "MachineSetRemoval infra-machines-removal",
        "NodeLabelsAndTaints infra-node-labels",
        "PoolRollout infra-pool-rollout",
      ],
    );
    await assert.rejects(
      cluster.object("MachineSet", "cluster-zbwlg-cbgq7-infra-us-east-2c", "openshift-machine-api"),
      /^Error: no MachineSet openshift-machine-api\/cluster-zbwlg-cbgq7-infra-us-east-2c was declared; the MachineSet objects are openshift-machine-api\/cluster-zbwlg-cbgq7-infra-us-east-2a, openshift-machine-api\/cluster-zbwlg-cbgq7-infra-us-east-2b$/,
    );
  });

  it("at a preview, says what each change does to a pool's nodes, from the pool in the fixtures", async () => {
    const cluster = await mockCluster(clusterWithInfraPool(path.join(dir, "fixtures.yaml")), {
      preview: true,
      config: { maxPods: "200" },
    });
    const maxPods = new pulumi.Config().requireNumber("maxPods");
    new KubeletConfig("infra-kubelet", { pool: "infra", kubeletConfig: { maxPods } });
    assert.deepEqual(await cluster.poolLines("infra"), [
      "pool infra: new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 12 min (file /etc/kubernetes/kubelet.conf of 99-infra-generated-kubelet)",
    ]);
    const [line] = await cluster.diagnostics();
    assert.deepEqual(line, {
      severity: "info",
      message: (await cluster.poolLines())[0],
      resource: "infra-kubelet",
    });
    const declared = await cluster.object("KubeletConfig", "infra-kubelet");
    assert.deepEqual((declared.manifest.spec as { kubeletConfig: unknown }).kubeletConfig, { maxPods: 200 });
  });

  it("answers an Azure pool's cloud lookups, its Resource Manager requests included, from the fixtures", async () => {
    await mockCluster(AZURE_FIXTURES);
    // centralus's zones and the size are checked against the fixtures' locations and VM SKUs.
    const pool = new InfraNodePool("infra", { zones: ["1", "2"], cloudLookups: true });
    assert.deepEqual(await valueOf(pool.machineSetNames), [
      "cluster-zbwlg-cbgq7-infra-centralus1",
      "cluster-zbwlg-cbgq7-infra-centralus2",
    ]);

    const { arm: _answers, ...withoutArm } = loadFixtures(AZURE_FIXTURES);
    await mockCluster(withoutArm);
    const unanswered = new InfraNodePool("infra", { zones: ["1", "2"], cloudLookups: true });
    await assert.rejects(
      valueOf(unanswered.machineSetNames),
      /no answer for the Resource Manager request GET \/subscriptions\/[\w-]+\/locations\?api-version=2022-12-01: add it to .*azure-infra-windows\/fixtures\.yaml under arm/,
    );
  });

  it("fails the output that needs a read the fixtures do not answer, naming the read and the file, instead of hanging", async () => {
    const file = path.join(dir, "empty.yaml");
    fs.writeFileSync(file, "objects: []\n");
    await mockCluster(file);
    const pool = new InfraNodePool("infra", { zones: ["us-east-2a"], replicas: 3 });
    await assert.rejects(valueOf(pool.machineSetNames), (error: Error) => {
      assert.match(
        error.message,
        /the program reads Infrastructure cluster \(config\.openshift\.io\/v1\) from the cluster, and without a cluster it has no answer: add it to .*empty\.yaml under objects/,
      );
      return true;
    });
  });

  it("with Pulumi's own mocks as its testing guide writes them (inputs as state), a read fails naming itself", async () => {
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
        call: (args) => args.inputs,
      },
      "project",
      "stack",
      false,
    );
    const pool = new InfraNodePool("infra", { zones: ["us-east-2a"], replicas: 3 });
    await assert.rejects(
      valueOf(pool.machineSetNames),
      /^Error: infrastructureId: not given, and the read of Infrastructure cluster \(type kubernetes:config\.openshift\.io\/v1:Infrastructure, id cluster\) was answered without status\.infrastructureName, .*@openshift-topology\/pulumi\/testing answers from a fixtures file/,
    );
  });
  // Mocha runs many suites in one process (its parallel workers too): a suite after this one, with
  // mocks of its own, must see the SDK as it is.
  it("steps aside once other mocks are installed: their logs printed as the SDK prints them, Resource Manager fetched for real", async () => {
    const fetched: string[] = [];
    const real = globalThis.fetch;
    globalThis.fetch = async (input) => {
      fetched.push(String(input));
      return new Response("{}");
    };
    const printed: string[] = [];
    const print = console.log;
    try {
      const cluster = await mockCluster(AZURE_FIXTURES);
      await pulumi.runtime.setMocks(
        { newResource: (args) => ({ id: args.name, state: args.inputs }), call: (args) => args.inputs },
        "project",
        "stack",
        true,
      );
      console.log = (line: string) => printed.push(line);
      await pulumi.log.info("pool worker: new render");
      const url = "https://management.azure.com/subscriptions/x/locations?api-version=2022-12-01";
      await fetch(url);
      assert.deepEqual(printed, ["info: [runtime] pool worker: new render"]);
      assert.deepEqual(await cluster.diagnostics(), [], "nothing recorded by mocks no longer installed");
      assert.deepEqual(fetched, [url]);
    } finally {
      console.log = print;
      globalThis.fetch = real;
    }
  });
});
