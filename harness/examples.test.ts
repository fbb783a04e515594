import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import { requireReference, SEEDS } from "../test/reference";
import { seedYaml } from "../test/seeds";
import { K, keyOf, machineConfig, storeUntil } from "../test/simulator-fixture";
import {
  changes,
  destroyLeavesNothing,
  kubectl,
  mergePatch,
  operatorOwned,
  previewThenUp,
  refreshFindsDrift,
  revise,
  upTakesBackHandEdits,
} from "../test/stack-life";
import { deploy, DeployOptions, DeployResult, preview } from "./deploy";
import { installedProgram } from "./installed";
import { loadProject } from "./project";

const EXAMPLES = path.resolve(__dirname, "..", "examples");

const EMPTIED_MONITORING = mergePatch(
  "configmap",
  "cluster-monitoring-config",
  { data: { "config.yaml": "{}\n" } },
  "openshift-monitoring",
);

interface Life {
  platform: "aws" | "azure";
  /** The second revision's config and exactly what its preview plans. */
  revision: { config: string[]; changes: string[] };
  /** A change made by hand with kubectl after it, and what the refresh then finds (name to paths). */
  drift: { kubectl: string[]; drifted: Record<string, string[]> };
  /** What an admin set up before the stack (kubectl commands), which destroy must leave as it was. */
  before?: string[][];
  /** Hand edits of fields the stack declares (kubectl commands) and the resources they drift. */
  handEdits: { kubectl: string[][]; drifted: string[] };
  /** After the destroy, on the same simulator: a cluster built by hand, adopted by the example. */
  adoption?: (sim: Simulator, options: (config: string[]) => DeployOptions) => Promise<void>;
}

/**
 * An example's whole life under the engine, on one simulator of its platform, the library installed
 * beside it as in a user's project: preview, up, a second revision, a refresh without drift, drift made
 * by hand, hand edits of the declared fields the next up takes back without a conflict, and a destroy
 * that leaves nothing of the stack and gives the objects the operators own back as they were.
 */
function lifecycle(example: string, life: Life): void {
  describe(`examples/${example} through the engine`, function () {
    this.timeout(360_000);
    let sim: Simulator;
    let dir: string;
    const suite = simulatorForSuite(`harness-${example}-`, { speed: 500, platform: life.platform });
    before(() => ({ sim, dir } = suite));

    it("previews, deploys, plans and deploys exactly its second revision, refreshes, finds drift made by hand, takes hand edits back, and destroys leaving the cluster as it was", async () => {
      const program = installedProgram(path.join(EXAMPLES, example));
      const options = (config: string[] = []): DeployOptions => ({
        project: loadProject(program, "dev", config),
        kubeconfigPath: sim.kubeconfigPath,
        statePath: path.join(dir, "state.json"),
      });
      for (const command of life.before ?? []) await kubectl(sim.kubeconfigPath, command);
      const owned = operatorOwned(sim);
      await previewThenUp(sim, options());

      const second = options(life.revision.config);
      await revise(second, life.revision.changes);
      await refreshFindsDrift(sim, second, life.drift.kubectl, life.drift.drifted);
      await upTakesBackHandEdits(
        sim,
        second,
        life.handEdits.kubectl,
        life.handEdits.drifted,
        Object.keys(life.drift.drifted),
      );

      await destroyLeavesNothing(sim, second);
      assert.deepEqual(operatorOwned(sim), owned, "the operators' objects as before the stack");
      const windowsMachines = sim.store
        .list("machine.openshift.io/v1beta1", "Machine", { namespace: "openshift-machine-api" })
        .filter((m) => m.metadata.labels?.["machine.openshift.io/os-id"] === "Windows");
      assert.deepEqual(windowsMachines, []);
    });

    if (life.adoption) {
      const adoption = life.adoption;
      it("adopts the pool, MachineSets and node configuration made by hand: the preview names each difference and whether nodes reboot; up replaces no Machine and reboots no node", async function () {
        requireReference(this, SEEDS);
        this.timeout(400_000);
        const program = installedProgram(path.join(EXAMPLES, example));
        await adoption(sim, (config) => ({
          project: loadProject(program, "dev", config),
          kubeconfigPath: sim.kubeconfigPath,
          statePath: path.join(dir, "adopted.json"),
        }));
      });
    }
  });
}

lifecycle("aws-infra-windows", {
  platform: "aws",
  // A new time server: the MachineConfig and the rollout that awaits it; nothing else.
  revision: {
    config: ["timeServer=time.aws.com"],
    changes: ["update 99-infra-chrony", "update 99-infra-chrony-rollout"],
  },
  drift: {
    kubectl: EMPTIED_MONITORING,
    drifted: { "infra-monitoring": ["data.config.yaml"] },
  },
  // The router's replicas and placement, changed by hand: the ingress operator's own fields stay its own.
  handEdits: {
    kubectl: [
      mergePatch(
        "ingresscontroller",
        "default",
        {
          spec: {
            replicas: 5,
            nodePlacement: { nodeSelector: { matchLabels: { "node-role.kubernetes.io/infra": "hand" } } },
          },
        },
        "openshift-ingress-operator",
      ),
      mergePatch("configs.imageregistry.operator.openshift.io", "cluster", { spec: { tolerations: [] } }),
    ],
    drifted: ["infra-router", "infra-registry"],
  },
  adoption: adoptSeed001,
});

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
  const create = async (object: unknown) => {
    const file = path.join(dir, `by-hand-${Math.random().toString(36).slice(2)}.json`);
    fs.writeFileSync(file, JSON.stringify(object));
    await kubectl(sim.kubeconfigPath, ["create", "--validate=false", "-f", file]);
  };
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

/** Seed 001's cluster adopted by the example: differences previewed, then an up that moves no machine or node. */
async function adoptSeed001(sim: Simulator, options: (config: string[]) => DeployOptions): Promise<void> {
  const dir = path.dirname(options([]).statePath!);
  await buildByHand(sim, dir);
  // As seed 001 built it: one zone, two machines of m5.4xlarge.
  const config = ["adopt=true", 'zones=["us-east-2a"]', "infraReplicas=2", "infraInstanceType=m5.4xlarge"];
  const previewed = async (extra: string[]) => {
    const lines: string[] = [];
    const result = await preview({
      ...options([...config, ...extra]),
      onDiagnostic: (d) => {
        if (/^(pool infra|MachineSet )/.test(d.message)) lines.push(d.message);
      },
    });
    assert.deepEqual(result.errors, []);
    return { result, lines };
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
      /^pool infra: new render; 2 nodes drain and reboot, .*file \/etc\/chrony.conf of 99-infra-chrony/.test(
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
  const noRender = same.lines.filter((l) => l.startsWith("pool infra: no new render"));
  assert.equal(noRender.length, 3, same.lines.join("\n"));

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

lifecycle("azure-infra-windows", {
  platform: "azure",
  // One more Windows machine: its MachineSet and the waiter for its nodes; the pools' rollouts stay.
  revision: { config: ["windowsReplicas=3"], changes: ["update windows-1", "update windows-nodes-ready"] },
  drift: {
    kubectl: mergePatch("configs.imageregistry.operator.openshift.io", "cluster", {
      spec: { nodeSelector: { "node-role.kubernetes.io/infra": "moved" } },
    }),
    drifted: { "infra-registry": ["spec.nodeSelector.node-role.kubernetes.io/infra"] },
  },
  // An admin's monitoring settings before the stack: destroy gives them back.
  before: [
    [
      "create",
      "configmap",
      "cluster-monitoring-config",
      "-n",
      "openshift-monitoring",
      "--from-literal=config.yaml=prometheusK8s:\n  retention: 7d\n",
    ],
  ],
  handEdits: {
    kubectl: [
      EMPTIED_MONITORING,
      mergePatch("ingresscontroller", "default", { spec: { replicas: 1 } }, "openshift-ingress-operator"),
    ],
    drifted: ["infra-monitoring", "infra-router"],
  },
});
