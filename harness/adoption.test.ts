import * as assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import { requireReference, SEEDS } from "../test/reference";
import { seedYaml, wmcoKeySecretCommand } from "../test/seeds";
import { K, keyOf, machineConfig, storeUntil } from "../test/simulator-fixture";
import { changes, kubectl, kubectlCreate } from "../test/stack-life";
import { deploy, DeployOptions, DeployResult, preview } from "./deploy";
import { installedProgram } from "./installed";
import { loadProject } from "./project";

const EXAMPLE = path.resolve(__dirname, "..", "examples", "aws-infra-windows");

const NS = "openshift-machine-api";
const INFRA_SET = "cluster-zbwlg-cbgq7-infra-us-east-2a";
const CHRONY = "pool 169.254.169.123 iburst\ndriftfile /var/lib/chrony/drift\nmakestep 1.0 3\nrtcsync\n";

/**
 * Seed 001's procedure with kubectl: its infra MachineSet created, labelled and scaled to 2, the registry
 * moved; then what the OpenShift docs add for infra nodes and the example declares: the `infra` pool
 * (worker configs inherited, labelled as the built-in pools are, so a KubeletConfig selects it), the
 * chrony MachineConfig and the KubeletConfig. Returns once the pool runs them on both nodes.
 */
async function buildByHand(sim: Simulator, dir: string): Promise<void> {
  const create = (object: unknown) => kubectlCreate(sim.kubeconfigPath, dir, object);
  await create(seedYaml("001", /^apiVersion: machine.openshift.io\/v1beta1$/, /^\s+versions:/));
  await kubectl(sim.kubeconfigPath, [
    "patch",
    "machineset",
    INFRA_SET,
    "-n",
    NS,
    "--type=json",
    '-p=[{"op": "add", "path": "/spec/template/spec/metadata/labels", "value":{"node-role.kubernetes.io/worker":"", "node-role.kubernetes.io/infra":""} }]',
  ]);
  await kubectl(sim.kubeconfigPath, ["scale", "machineset", INFRA_SET, "-n", NS, "--replicas=2"]);
  await kubectl(sim.kubeconfigPath, [
    "patch",
    "configs.imageregistry.operator.openshift.io/cluster",
    "--type=merge",
    '-p={"spec":{"nodeSelector":{"node-role.kubernetes.io/infra": ""}}}',
  ]);
  await create({
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfigPool",
    metadata: { name: "infra", labels: { "pools.operator.machineconfiguration.openshift.io/infra": "" } },
    spec: {
      machineConfigSelector: {
        matchExpressions: [
          { key: "machineconfiguration.openshift.io/role", operator: "In", values: ["worker", "infra"] },
        ],
      },
      nodeSelector: { matchLabels: { "node-role.kubernetes.io/infra": "" } },
    },
  });
  const chrony = machineConfig("99-infra-chrony", { "/etc/chrony.conf": CHRONY }, "infra");
  // As the docs' examples write files: replacing what the image has.
  (
    chrony.spec as { config: { storage: { files: Array<{ overwrite?: boolean }> } } }
  ).config.storage.files[0].overwrite = true;
  await create(chrony);
  await create({
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "KubeletConfig",
    metadata: { name: "infra-kubelet" },
    spec: {
      machineConfigPoolSelector: {
        matchLabels: { "pools.operator.machineconfiguration.openshift.io/infra": "" },
      },
      kubeletConfig: { maxPods: 250 },
    },
  });
  await storeUntil(sim, "the infra pool running chrony and the kubelet config on 2 nodes", () => {
    const pool = sim.store.get(keyOf(K.pool, "infra"));
    const status = (pool?.status ?? {}) as {
      configuration?: { name?: string; source?: Array<{ name: string }> };
      machineCount?: number;
      updatedMachineCount?: number;
      readyMachineCount?: number;
    };
    const sources = (status.configuration?.source ?? []).map((s) => s.name);
    return (
      sources.includes("99-infra-chrony") &&
      sources.some((n) => n.startsWith("99-infra-generated-kubelet")) &&
      status.configuration?.name ===
        (pool?.spec as { configuration?: { name?: string } }).configuration?.name &&
      status.machineCount === 2 &&
      status.updatedMachineCount === 2 &&
      status.readyMachineCount === 2
    );
  });
}

/** WMCO installed by hand as seed 002 installs it: its namespace, OperatorGroup and Subscription. */
async function installWmcoByHand(sim: Simulator, dir: string): Promise<void> {
  for (const apiVersion of ["v1", "operators.coreos.com\\/v1", "operators.coreos.com\\/v1alpha1"])
    await kubectlCreate(
      sim.kubeconfigPath,
      dir,
      seedYaml("002", new RegExp(`^\\s+apiVersion: ${apiVersion}$`)),
    );
}

/**
 * Seed 001's cluster, with WMCO installed from OperatorHub (seed 002's first steps), adopted by the
 * example, whose `adopt` covers its Windows pool too: differences previewed, then an up that moves no
 * machine or node.
 */
async function adoptSeed001(sim: Simulator, options: (config: string[]) => DeployOptions): Promise<void> {
  const dir = path.dirname(options([]).statePath!);
  await buildByHand(sim, dir);
  await installWmcoByHand(sim, dir);
  // As seed 001 built it: one zone, two machines of m5.4xlarge.
  const config = ["adopt=true", 'zones=["us-east-2a"]', "infraReplicas=2", "infraInstanceType=m5.4xlarge"];
  const previewed = async (extra: string[]) => {
    const lines: string[] = [];
    const adoptLines: string[] = [];
    const result = await preview({
      ...options([...config, ...extra]),
      onDiagnostic: (d) => {
        if (/^(pool infra|MachineSet )/.test(d.message)) lines.push(d.message);
        if (d.message.startsWith("adopt: ")) adoptLines.push(d.message);
      },
    });
    assert.deepEqual(result.errors, []);
    return { result, lines, adoptLines };
  };
  const diffsOf = (result: DeployResult, name: string) =>
    result.plan.find((s) => s.name === name && s.op === "update")?.diffs ?? [];

  // Another time server than the one on the nodes: the preview says the render changes and nodes reboot.
  const other = await previewed(["timeServer=time.aws.com"]);
  // The library's objects also carry pulumi.com/patchForce (see Hand edits): named as any difference.
  assert.deepEqual(diffsOf(other.result, "99-infra-chrony"), [
    "metadata.annotations",
    "spec.config.storage.files",
  ]);
  assert.ok(
    other.lines.some((l) =>
      /^pool infra: .*new render; 2 nodes drain and reboot, .*file \/etc\/chrony.conf of 99-infra-chrony/.test(
        l,
      ),
    ),
    other.lines.join("\n"),
  );

  // What the nodes run: imports, the MachineSet's differences named, and no new render anywhere.
  const same = await previewed([]);
  const planned = changes(same.result);
  for (const name of ["infra-pool", "infra-us-east-2a", "99-infra-chrony", "infra-kubelet"])
    assert.ok(planned.includes(`import ${name}`), `import ${name} in ${planned.join(", ")}`);
  assert.ok(
    !planned.some((c) =>
      /^(create|replace|delete) (infra-pool|infra-us-east-2a|99-infra-chrony|infra-kubelet)$/.test(c),
    ),
  );
  const windowsSet = `${sim.cluster.infrastructureId}-windows-worker-us-east-2a`;
  assert.deepEqual(
    [...same.adoptLines].sort(),
    [
      `adopt: MachineSet ${NS}/${windowsSet} is not in the cluster: created`,
      "adopt: RuntimeClass windows-2022 is not in the cluster: created",
      "adopt: Secret openshift-windows-machine-config-operator/cloud-private-key is not in the cluster: created",
    ],
    "every object the infra pool declares is in the cluster; the Windows pool's own objects are not",
  );
  for (const name of ["windows-wmco-namespace", "windows-wmco-operator-group", "windows-wmco-subscription"])
    assert.ok(planned.includes(`import ${name}`), `import ${name} in ${planned.join(", ")}`);
  for (const name of ["99-infra-chrony", "infra-kubelet"])
    assert.deepEqual(
      diffsOf(same.result, name).filter((d) => !d.startsWith("metadata.annotations")),
      [],
      `${name}: only the patchForce annotation differs`,
    );
  // Seed 001's MachineSet differs from what the pool declares (taints, AMI, network references of the
  // worker MachineSet): each named, for new machines only.
  const setDiffs = diffsOf(same.result, "infra-us-east-2a");
  for (const path of ["spec.template.spec.taints", "spec.template.spec.providerSpec.value.securityGroups"])
    assert.ok(
      setDiffs.some((d) => d.startsWith(path)),
      `${path} in ${setDiffs.join(", ")}`,
    );
  // One line for the pool (pool-summary.ts), whichever components declare its parts.
  const noRender = same.lines.filter((l) => /^pool infra: .*no new render/.test(l));
  assert.equal(noRender.length, 1, same.lines.join("\n"));

  // A second zone the hand-made pool lacks: its MachineSet is created, the rest still imported, and the
  // preview names the one created.
  const wider = await previewed(['zones=["us-east-2a","us-east-2b"]']);
  const widerPlan = changes(wider.result);
  for (const step of ["import infra-pool", "import infra-us-east-2a", "create infra-us-east-2b"])
    assert.ok(widerPlan.includes(step), `${step} in ${widerPlan.join(", ")}`);
  assert.ok(!widerPlan.includes("import infra-us-east-2b"), widerPlan.join(", "));
  assert.ok(
    wider.adoptLines.includes(
      `adopt: MachineSet ${NS}/cluster-zbwlg-cbgq7-infra-us-east-2b is not in the cluster: created`,
    ),
    wider.adoptLines.join("\n"),
  );

  const machines = () =>
    sim.store
      .list(K.machine.apiVersion, K.machine.kind, { namespace: NS })
      .filter((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === INFRA_SET)
      .map((m) => m.metadata.uid)
      .sort();
  const before = machines();
  const touched = new Set<string>();
  const unwatch = sim.store.subscribe(({ object }) => {
    if (object.kind !== "Node" || object.metadata.labels?.["node-role.kubernetes.io/infra"] === undefined)
      return;
    if (object.metadata.annotations?.["machineconfiguration.openshift.io/state"] !== "Done")
      touched.add(object.metadata.name);
  });
  try {
    const up = await deploy(options(config));
    assert.deepEqual(up.errors, []);
    assert.deepEqual(changes(up).sort(), [...planned].sort(), "up did what the preview planned");
  } finally {
    unwatch();
  }
  assert.deepEqual(machines(), before, "the same Machines: none replaced");
  assert.deepEqual([...touched], [], "no infra node went through an update (drain or reboot)");
}

const WINDOWS_POOL = path.join(__dirname, "testdata", "windows-pool");

/** The cluster's Windows Machines. */
function windowsMachines(sim: Simulator) {
  return sim.store
    .list("machine.openshift.io/v1beta1", "Machine", { namespace: NS })
    .filter((m) => m.metadata.labels?.["machine.openshift.io/os-id"] === "Windows");
}

/** Seed 002's procedure with kubectl: WMCO subscribed, its key Secret, a Windows MachineSet, a RuntimeClass. */
async function buildSeed002ByHand(sim: Simulator, dir: string, pem: string): Promise<void> {
  const create = (object: unknown) => kubectlCreate(sim.kubeconfigPath, dir, object);
  await installWmcoByHand(sim, dir);
  const keyFile = path.join(dir, "windows-key.pem");
  fs.writeFileSync(keyFile, pem);
  await kubectl(sim.kubeconfigPath, wmcoKeySecretCommand(keyFile));
  const id = sim.cluster.infrastructureId;
  await create(
    seedYaml("002", /^apiVersion: machine.openshift.io\/v1beta1$/, undefined, {
      "<infrastructure_id>": id,
      "<zone>": "us-east-2a",
      "<region>": "us-east-2",
      "<windows_container_ami>": "ami-0a2b3c4d5e6f70812",
    }),
  );
  // The seed's RuntimeClass under the name the pool gives it, at the API version served today.
  const runtimeClass = seedYaml("002", /^\s+apiVersion: node.k8s.io\/v1beta1$/, undefined, {
    "<runtime_class_name>": "windows-2022",
  }) as Record<string, unknown>;
  await create({ ...runtimeClass, apiVersion: "node.k8s.io/v1" });
  await storeUntil(sim, "the hand-made Windows machine configured by WMCO", () =>
    windowsMachines(sim).some((m) => {
      const node = (m.status as { nodeRef?: { name: string } } | undefined)?.nodeRef?.name;
      const found = node ? sim.store.get({ apiVersion: "v1", kind: "Node", name: node }) : undefined;
      return !!found?.metadata.annotations?.["windowsmachineconfig.openshift.io/version"];
    }),
  );
}

/**
 * A suite's simulated AWS cluster to build by hand, skipped before the simulator starts when the seeds
 * are missing: without them there is nothing to build.
 */
function handMadeCluster(suite: Mocha.Suite, prefix: string) {
  suite.timeout(400_000);
  before(function () {
    requireReference(this, SEEDS);
  });
  return simulatorForSuite(prefix, { speed: 500, platform: "aws" });
}

describe("examples/aws-infra-windows adopting what seed 001 made by hand", function () {
  const suite = handMadeCluster(this, "harness-adoption-");

  it("adopts the pool, MachineSets, node configuration and WMCO made by hand: the preview names each difference and whether nodes reboot; up replaces no Machine and reboots no node", async () => {
    const program = installedProgram(EXAMPLE);
    await adoptSeed001(suite.sim, (config) => ({
      project: loadProject(program, "dev", config),
      kubeconfigPath: suite.sim.kubeconfigPath,
      statePath: path.join(suite.dir, "adopted.json"),
    }));
  });
});

describe("a Windows pool adopting what seed 002 made by hand", function () {
  // A cluster of its own: the example adopted above runs a Windows pool of its own.
  const suite = handMadeCluster(this, "harness-adoption-windows-");

  it("imports WMCO's subscription, its key and the Windows MachineSet, replaces no Windows machine and configures no node again", async () => {
    const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      type: "pkcs1",
      format: "pem",
    }) as string;
    await buildSeed002ByHand(suite.sim, suite.dir, pem);
    // The seed makes no MachineHealthCheck: the program's is created beside what is adopted.
    const config = ["adopt=true", `privateKey=${pem}`, "healthCheck=true"];
    const options = (): DeployOptions => ({
      project: loadProject(installedProgram(WINDOWS_POOL), "dev", config),
      kubeconfigPath: suite.sim.kubeconfigPath,
      statePath: path.join(suite.dir, "adopted-windows.json"),
    });
    const adoptLines: string[] = [];
    const previewed = await preview({
      ...options(),
      onDiagnostic: (d) => {
        if (d.message.startsWith("adopt: ")) adoptLines.push(d.message);
      },
    });
    assert.deepEqual(previewed.errors, []);
    assert.deepEqual(adoptLines, [
      `adopt: MachineHealthCheck ${NS}/${suite.sim.cluster.infrastructureId}-windows-worker is not in the cluster: created`,
    ]);
    const before = windowsMachines(suite.sim).map((m) => m.metadata.uid);
    const cordoned = new Set<string>();
    const unwatch = suite.sim.store.subscribe(({ object }) => {
      if (object.kind === "Node" && (object.spec as { unschedulable?: boolean }).unschedulable)
        cordoned.add(object.metadata.name);
    });
    try {
      const up = await deploy(options());
      assert.deepEqual(up.errors, []);
      assert.equal((up.outputs.configuredNodes as string[]).length, 1);
      const done = changes(up);
      for (const name of [
        "windows-runtime-class",
        "windows-wmco-namespace",
        "windows-wmco-operator-group",
        "windows-wmco-subscription",
        "windows-private-key",
        "windows-us-east-2a",
      ])
        assert.ok(done.includes(`import ${name}`), `import ${name} in ${done.join(", ")}`);
      assert.ok(done.includes("create windows-health-check"), done.join(", "));
      assert.ok(!done.some((c) => /^(replace|delete) /.test(c)), done.join(", "));
      // pulumi's engine reads an import at preview as at up (pkg/resource/deploy/step.go, ImportStep.Apply
      // calls the provider's Read whether or not it previews), then diffs the program against what it read
      // (step_generator.go, continueStepsFromImport): the preview plans every import the up makes.
      // Registered once the cluster's reads answer, objects may come in another order.
      assert.deepEqual(changes(previewed).sort(), [...done].sort(), "the preview planned what up did");
    } finally {
      unwatch();
    }
    assert.deepEqual(
      windowsMachines(suite.sim).map((m) => m.metadata.uid),
      before,
      "the same Windows Machine",
    );
    assert.deepEqual([...cordoned], [], "WMCO configured no node again (it cordons one while it does)");
  });
});
