import * as assert from "node:assert/strict";
import * as path from "node:path";
import { Simulator } from "../simulator/simulator";
import type { KubeObject } from "../simulator/store/types";
import { simulatorForSuite } from "../test/harness-simulator";
import {
  adoptsWhatItLost,
  destroyLeavesNothing,
  kubectl,
  mergePatch,
  operatorOwned,
  previewThenUp,
  refreshFindsDrift,
  revise,
  upTakesBackHandEdits,
} from "../test/stack-life";
import { DeployOptions } from "./deploy";
import { poolLines } from "./display";
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
  /** The second revision's config, exactly what its preview plans and what it says of the pools' nodes. */
  revision: { config: string[]; changes: string[]; says?: string[] };
  /** A change made by hand with kubectl after it, and what the refresh then finds (name to paths). */
  drift: { kubectl: string[]; drifted: Record<string, string[]> };
  /** What an admin set up before the stack (kubectl commands), which destroy must leave as it was. */
  before?: string[][];
  /** Hand edits of fields the stack declares (kubectl commands) and the resources they drift. */
  handEdits: { kubectl: string[][]; drifted: string[] };
  /**
   * A label and a taint added to a pool (config), then removed: the config, the pool, what each preview
   * plans and says, and someone else's label and taint on the pool's nodes (kubectl), which stay.
   */
  labelsAndTaints?: {
    pool: string;
    config: string[];
    label: [string, string];
    taint: { key: string; value: string; effect: string };
    added: { changes: string[]; says: string };
    removed: { changes: string[]; says: string };
  };
}

/**
 * An example's whole life under the engine, on one simulator of its platform, the library installed
 * beside it as in a user's project: preview, up, a second revision, a refresh without drift, drift made
 * by hand, hand edits of the declared fields the next up takes back without a conflict, its state lost
 * and everything adopted back with `adopt=true`, and a destroy
 * that leaves nothing of the stack and gives the objects the operators own back as they were.
 */
function lifecycle(example: string, life: Life): void {
  describe(`examples/${example} through the engine`, function () {
    this.timeout(480_000);
    let sim: Simulator;
    let dir: string;
    const suite = simulatorForSuite(`harness-${example}-`, { speed: 500, platform: life.platform });
    before(() => ({ sim, dir } = suite));

    it("previews, deploys, plans and deploys exactly its second revision, refreshes, finds drift made by hand, takes hand edits back, adopts everything with its state lost, and destroys leaving the cluster as it was", async () => {
      const program = installedProgram(path.join(EXAMPLES, example));
      const options = (config: string[] = []): DeployOptions => ({
        project: loadProject(program, "dev", config),
        kubeconfigPath: sim.kubeconfigPath,
        statePath: path.join(dir, "state.json"),
      });
      for (const command of life.before ?? []) await kubectl(sim.kubeconfigPath, command);
      const owned = operatorOwned(sim);
      await previewThenUp(sim, options());
      if (life.labelsAndTaints) await labelsAndTaintsReachNodes(sim, options, life.labelsAndTaints);
      const second = options(life.revision.config);
      const revised = await revise(second, life.revision.changes);
      // What npm run demo shows of its second revision (the AWS one): what the change does to the nodes.
      if (life.revision.says) assert.deepEqual(poolLines(revised.previewed), life.revision.says);
      await refreshFindsDrift(sim, second, life.drift.kubectl, life.drift.drifted);
      await upTakesBackHandEdits(
        sim,
        second,
        life.handEdits.kubectl,
        life.handEdits.drifted,
        Object.keys(life.drift.drifted),
      );

      // The state lost: `up --config adopt=true` imports everything the example declares.
      const adopting = options([...life.revision.config, "adopt=true"]);
      await adoptsWhatItLost(sim, adopting);

      await destroyLeavesNothing(sim, adopting);
      assert.deepEqual(operatorOwned(sim), owned, "the operators' objects as before the stack");
      const windowsMachines = sim.store
        .list("machine.openshift.io/v1beta1", "Machine", { namespace: "openshift-machine-api" })
        .filter((m) => m.metadata.labels?.["machine.openshift.io/os-id"] === "Windows");
      assert.deepEqual(windowsMachines, []);
    });
  });
}

/** The nodes of a pool's role, by name. */
function poolNodes(sim: Simulator, pool: string) {
  return sim.store
    .list("v1", "Node")
    .filter((n) => n.metadata.labels?.[`node-role.kubernetes.io/${pool}`] !== undefined);
}

const taintsOf = (node: KubeObject) =>
  ((node.spec as { taints?: Array<{ key: string; value?: string; effect: string }> }).taints ?? []).map(
    (t) => `${t.key}=${t.value ?? ""}:${t.effect}`,
  );

/**
 * #40: a label and a taint added to a deployed pool reach its running nodes and leave them again when
 * removed, without replacing a machine, each preview saying exactly that once; someone else's stay.
 */
async function labelsAndTaintsReachNodes(
  sim: Simulator,
  options: (config?: string[]) => DeployOptions,
  step: NonNullable<Life["labelsAndTaints"]>,
): Promise<void> {
  const machines = () =>
    sim.store
      .list("machine.openshift.io/v1beta1", "Machine", { namespace: "openshift-machine-api" })
      .map((m) => m.metadata.name)
      .sort();
  const before = machines();
  const [theirs] = poolNodes(sim, step.pool);
  await kubectl(sim.kubeconfigPath, ["label", "node", theirs.metadata.name, "example.com/owner=ops"]);
  await kubectl(sim.kubeconfigPath, ["taint", "node", theirs.metadata.name, "example.com/ops=x:NoSchedule"]);
  const [key, value] = step.label;
  const taint = `${step.taint.key}=${step.taint.value}:${step.taint.effect}`;
  const said = (config?: string[]) => {
    const lines: string[] = [];
    const all: string[] = [];
    const run = options(config);
    return {
      lines,
      all,
      options: {
        ...run,
        onDiagnostic: (d: { message: string }) => {
          all.push(d.message.trim());
          if (/ nodes? (get|lose)s? /.test(d.message)) lines.push(d.message.trim());
        },
      },
    };
  };

  const added = said(step.config);
  await revise(added.options, step.added.changes);
  assert.deepEqual(added.lines, [step.added.says], `the preview says it once: ${added.all.join("\n")}`);
  for (const node of poolNodes(sim, step.pool)) {
    assert.equal(node.metadata.labels?.[key], value, node.metadata.name);
    assert.ok(taintsOf(node).includes(taint), `${node.metadata.name}: ${taintsOf(node).join(", ")}`);
  }
  const removed = said();
  await revise(removed.options, step.removed.changes);
  assert.deepEqual(removed.lines, [step.removed.says], `the preview says it once: ${removed.all.join("\n")}`);
  for (const node of poolNodes(sim, step.pool)) {
    assert.equal(node.metadata.labels?.[key], undefined, node.metadata.name);
    assert.ok(!taintsOf(node).includes(taint), node.metadata.name);
  }
  const kept = sim.store.get({ apiVersion: "v1", kind: "Node", name: theirs.metadata.name })!;
  assert.equal(kept.metadata.labels?.["example.com/owner"], "ops", "someone else's label stays");
  assert.ok(taintsOf(kept).includes("example.com/ops=x:NoSchedule"), "someone else's taint stays");
  assert.deepEqual(machines(), before, "no machine replaced");
}

/**
 * What a node label or taint changes in the example's infra pool, added or removed: the template of each
 * MachineSet, what waits on them, and the tolerations of what the pool hosts.
 */
const LABELS_AND_TAINTS_CHANGE = [
  "update infra-us-east-2a",
  "update infra-us-east-2b",
  "update infra-us-east-2c",
  "update infra-pool-rollout",
  "update infra-node-labels",
  "update infra-router",
  "update infra-registry",
  "update infra-monitoring",
];

lifecycle("aws-infra-windows", {
  platform: "aws",
  // A new time server: the MachineConfig and the rollout that awaits it; nothing else.
  revision: {
    config: ["timeServer=time.aws.com"],
    changes: ["update 99-infra-chrony", "update 99-infra-chrony-rollout"],
    says: [
      "pool infra: new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 12 min (file /etc/chrony.conf of 99-infra-chrony)",
    ],
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
  labelsAndTaints: {
    pool: "infra",
    config: [
      'infraNodeLabels={"example.com/team":"logging"}',
      'infraTaints=[{"key":"example.com/dedicated","value":"logging","effect":"NoSchedule"}]',
    ],
    label: ["example.com/team", "logging"],
    taint: { key: "example.com/dedicated", value: "logging", effect: "NoSchedule" },
    added: {
      changes: LABELS_AND_TAINTS_CHANGE,
      says: "pool infra: no new render; 3 nodes get label example.com/team=logging; 3 nodes get taint example.com/dedicated=logging:NoSchedule (no drain, no reboot)",
    },
    removed: {
      changes: LABELS_AND_TAINTS_CHANGE,
      says: "pool infra: no new render; 3 nodes lose label example.com/team; 3 nodes lose taint example.com/dedicated=logging:NoSchedule (no drain, no reboot)",
    },
  },
});

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
