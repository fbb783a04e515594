import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { MANAGED_EXCEPT_STACK_OWNED } from "../primitives/boot-images";
import { bootImageStream } from "../simulator/cluster/seed";
import { startSimulator, Simulator } from "../simulator/simulator";
import { K, keyOf, machineConfig, storeUntil } from "../test/simulator-fixture";
import { changes, checkpointOnCluster, kubectl } from "../test/stack-life";
import { deploy, DeployOptions, destroy, preview, refresh, UNKNOWN } from "./deploy";
import { installedProgram } from "./installed";
import { loadProject } from "./project";

const INFRA_POOL = path.join(__dirname, "testdata", "infra-pool");
const BROKEN_PROVIDER = path.join(__dirname, "testdata", "broken-provider");
const MACHINE_SET = "cluster-zbwlg-cbgq7-infra-us-east-2a";
/**
 * The state release 0.1.0 wrote for INFRA_POOL through this engine (installed, default config): its pool
 * had a MachineSetReady and a RolloutBaseline beside its PoolRollout, its MachineConfig a RolloutBaseline.
 */
const CHECKPOINT_0_1_0 = path.join(__dirname, "testdata", "checkpoints", "infra-pool-0.1.0.json");

describe("preview, up, refresh, --replace and destroy through the engine", function () {
  this.timeout(120_000);
  let sim: Simulator;
  let dir: string;
  const quiet = process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG;

  before(async () => {
    process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = "0";
    sim = await startSimulator({ speed: 500 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-lifecycle-"));
  });
  after(async () => {
    if (quiet === undefined) delete process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG;
    else process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = quiet;
    await sim?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const options = (config: string[] = [], extra: Partial<DeployOptions> = {}): DeployOptions => ({
    project: loadProject(installedProgram(INFRA_POOL), "dev", config),
    kubeconfigPath: sim.kubeconfigPath,
    statePath: path.join(dir, "state.json"),
    ...extra,
  });

  it("previews without creating or waiting, then a revision's preview plans exactly its changes", async () => {
    const planned = await preview(options());
    assert.deepEqual(planned.errors, []);
    assert.deepEqual(changes(planned).sort(), [
      "create 99-infra-motd",
      "create 99-infra-motd-removal",
      "create 99-infra-motd-rollout",
      "create infra-machines-removal",
      "create infra-node-labels",
      "create infra-pool",
      "create infra-pool-rollout",
      "create infra-us-east-2a",
    ]);
    // Known from inputs during preview: the MachineSet names; known only once the pool rolled: its render.
    assert.deepEqual(planned.outputs.machineSets, [MACHINE_SET]);
    assert.equal(planned.outputs.renderedConfig, UNKNOWN);
    assert.equal(sim.store.get(keyOf(K.pool, "infra")), undefined, "a preview creates nothing");
    assert.ok(!fs.existsSync(path.join(dir, "state.json")), "a preview writes no state");

    const up = await deploy(options());
    assert.deepEqual(up.errors, []);
    assert.equal(up.counts.create, 8);

    const second = await preview(options(["motdText=second revision\n"]));
    assert.deepEqual(second.errors, []);
    assert.deepEqual(changes(second).sort(), ["update 99-infra-motd", "update 99-infra-motd-rollout"]);
    const mc = second.plan.find((s) => s.name === "99-infra-motd")!;
    assert.deepEqual(mc.diffs, ["spec.config.storage.files"]);
    // Nothing the pool's waiter awaits (its MachineSets and its pool) changed: it is the same.
    assert.equal(second.plan.find((s) => s.name === "infra-pool-rollout")!.op, "same");
  });

  it("refreshes without drift, reads drift made by hand back into the inputs for the next up to undo, and replaces a waiter when asked", async () => {
    const clean = await refresh(options());
    assert.deepEqual(clean.errors, []);
    assert.deepEqual(changes(clean), []);

    // Removed, not changed: a field the harness applied and someone else changed would be a server-side
    // apply conflict on the next up, as with pulumi-kubernetes (unless pulumi.com/patchForce).
    await kubectl(sim.kubeconfigPath, [
      "label",
      "machineconfig",
      "99-infra-motd",
      "machineconfiguration.openshift.io/role-",
    ]);
    const drifted = await refresh(options());
    assert.deepEqual(drifted.errors, []);
    assert.deepEqual(changes(drifted), ["update 99-infra-motd"]);
    assert.deepEqual(drifted.plan.find((s) => s.name === "99-infra-motd")!.diffs, [
      "metadata.labels.machineconfiguration.openshift.io/role",
    ]);

    // As Pulumi's refresh, the inputs are read back too: the next up takes the drift back.
    const read = drifted.state.deployment.resources.find(
      (r) => r.custom && r.urn.endsWith("::99-infra-motd"),
    )!;
    const labels = (read.inputs!.metadata as { labels: Record<string, string> }).labels;
    assert.ok(!("machineconfiguration.openshift.io/role" in labels), JSON.stringify(labels));
    const undo = await preview(options());
    assert.deepEqual(changes(undo), ["update 99-infra-motd"]);

    const replaced = await deploy(options([], { replace: ["infra-pool-rollout"] }));
    assert.deepEqual(replaced.errors, []);
    assert.deepEqual(changes(replaced).sort(), ["replace infra-pool-rollout", "update 99-infra-motd"]);
    const role = await kubectl(sim.kubeconfigPath, [
      "get",
      "machineconfig",
      "99-infra-motd",
      "-o",
      "jsonpath={.metadata.labels.machineconfiguration\\.openshift\\.io/role}",
    ]);
    assert.equal(role, "infra");
  });

  it("takes a pool's replicas back from the cluster autoscaler that scaled it once autoscaling is removed and another size declared", async () => {
    const autoscaled = await deploy(options(["autoscale=true"]));
    assert.deepEqual(autoscaled.errors, []);
    sim.faults.inject("pendingPods", { nodes: 1 });
    const scaled = sim.store.get(keyOf(K.machineSet, MACHINE_SET, "openshift-machine-api"))!;
    assert.equal((scaled.spec as { replicas: number }).replicas, 2);
    // The autoscaler's update made it the owner of the replicas, as on OpenShift.
    const managers = (scaled.metadata.managedFields ?? []) as Array<{ manager: string }>;
    assert.ok(
      managers.some((e) => e.manager === "cluster-autoscaler"),
      JSON.stringify(managers),
    );

    // Without autoscaling the stack owns the replicas again: a size other than the autoscaler's is applied.
    const fixed = await deploy(options(["replicas=3"]));
    assert.deepEqual(fixed.errors, []);
    const back = sim.store.get(keyOf(K.machineSet, MACHINE_SET, "openshift-machine-api"))!;
    assert.equal((back.spec as { replicas: number }).replicas, 3);
  });

  it("after hand edits and a refresh, up takes back what the stack declares and leaves the rest, without a conflict", async () => {
    const program = options(["replicas=3"]);
    const patch = (resource: string, name: string, body: object, namespace?: string) =>
      kubectl(sim.kubeconfigPath, [
        "patch",
        resource,
        name,
        ...(namespace ? ["-n", namespace] : []),
        "--type",
        "merge",
        "-p",
        JSON.stringify(body),
      ]);
    // kubectl records these as field manager "kubectl-patch" (an Update): without patchForce the next
    // server-side apply of another value is a 409 conflict (kube-apiserver's fieldmanager, as
    // structured-merge-diff's Updater.Apply reports it).
    const POOL_LABEL = "pools.operator.machineconfiguration.openshift.io/infra";
    await patch("machineconfigpool", "infra", {
      metadata: { labels: { [POOL_LABEL]: "hand" } },
      spec: { paused: true, maxUnavailable: 2 },
    });
    await patch("machineconfig", "99-infra-motd", { spec: { config: { ignition: { version: "3.4.0" } } } });
    await patch(
      "machineset",
      MACHINE_SET,
      { spec: { template: { spec: { metadata: { labels: { "node-role.kubernetes.io/infra": "hand" } } } } } },
      "openshift-machine-api",
    );
    const found = await refresh(program);
    assert.deepEqual(found.errors, []);
    const declared = ["update 99-infra-motd", "update infra-pool", "update infra-us-east-2a"];
    assert.deepEqual(changes(found).sort(), declared);

    const up = await deploy(program);
    assert.deepEqual(up.errors, []);
    assert.deepEqual(changes(up).sort(), declared);
    const mc = sim.store.get(keyOf(K.machineConfig, "99-infra-motd"))!;
    assert.equal((mc.spec as any).config.ignition.version, "3.2.0");
    const set = sim.store.get(keyOf(K.machineSet, MACHINE_SET, "openshift-machine-api"))!;
    assert.equal((set.spec as any).template.spec.metadata.labels["node-role.kubernetes.io/infra"], "");
    // The pool's label is declared: taken back. Its paused and maxUnavailable are not: the pool stays
    // as the operator left it (the waiter reports it paused).
    const pool = sim.store.get(keyOf(K.pool, "infra"))!;
    assert.equal(pool.metadata.labels?.[POOL_LABEL], "");
    assert.deepEqual([(pool.spec as any).paused, (pool.spec as any).maxUnavailable], [true, 2]);
    await patch("machineconfigpool", "infra", { spec: { paused: false } });
  });

  // openshift/machine-config-operator pkg/controller/bootimage (ms_helpers.go syncMAPIMachineSet) and
  // pkg/operator/sync.go syncManagedBootImagesStatus, as the simulator's controller models them.
  it("leaves the boot image the MCO updated to the MCO, and a pool that declares it says whether the MCO's selection leaves it out", async function () {
    this.timeout(240_000);
    const program = (config: string[] = []) => options(["replicas=3", ...config]);
    const amiOf = (name: string) =>
      (sim.store.get(keyOf(K.machineSet, name, "openshift-machine-api"))?.spec as any).template.spec
        .providerSpec.value.ami.id;
    const linesOf = async (config: string[]) => {
      const lines: string[] = [];
      const result = await preview({
        ...program(config),
        onDiagnostic: (d) =>
          d.message.startsWith(`MachineSet ${MACHINE_SET}: boot image`) &&
          lines.push(`${d.severity}: ${d.message}`),
      });
      assert.deepEqual(result.errors, []);
      return { lines, changes: changes(result) };
    };
    // A release upgrade: the CVO writes the new boot image stream, and the MCO updates the MachineSets.
    const stream = bootImageStream("us-east-2", "ami-0a1b2c3d4e5f60718");
    await kubectl(sim.kubeconfigPath, [
      "patch",
      "configmap",
      "coreos-bootimages",
      "-n",
      "openshift-machine-config-operator",
      "--type",
      "merge",
      "-p",
      JSON.stringify({ data: stream.data }),
    ]);
    // Checked now and on each store event: the MCO may have updated it before kubectl returned.
    await storeUntil(
      sim,
      "the MCO's update of the MachineSet's AMI",
      () => amiOf(MACHINE_SET) === "ami-0a1b2c3d4e5f60718",
    );
    const found = await refresh(program());
    assert.deepEqual(found.errors, []);
    assert.deepEqual(changes(found), [], "the MCO's update is no drift: the image is the MCO's");
    const owned = await linesOf([]);
    assert.deepEqual(owned.changes, []);
    // Nothing of the MachineSet changes: the note is no news, said at debug (machine-set-notes.ts).
    assert.deepEqual(owned.lines, [
      `debug: MachineSet ${MACHINE_SET}: boot image ami-0a1b2c3d4e5f60718 at creation, then the MCO's (managedBootImages (All) selects it)`,
    ]);

    // The stack declares it: a label a Partial selection can leave out, and a warning while All selects it.
    const partial = { spec: { managedBootImages: MANAGED_EXCEPT_STACK_OWNED } };
    const declared = await linesOf(["bootImageOwner=stack"]);
    // Its label and image are now the pool's content: the pool's waiter waits again.
    assert.deepEqual(declared.changes, ["update infra-us-east-2a", "update infra-pool-rollout"]);
    assert.deepEqual(declared.lines, [
      `warning: MachineSet ${MACHINE_SET}: boot image ami-0a1b2c3d4e5f60718 declared by the stack, but the MCO updates it too (managedBootImages (All) selects it): each up would undo its update; leave the stack's MachineSets out: kubectl patch machineconfiguration cluster --type=merge -p '${JSON.stringify(partial)}'`,
    ]);
    await kubectl(sim.kubeconfigPath, [
      "patch",
      "machineconfiguration",
      "cluster",
      "--type",
      "merge",
      "-p",
      JSON.stringify(partial),
    ]);
    // The declared image is the one the MachineSet has: no news, said at debug.
    assert.deepEqual((await linesOf(["bootImageOwner=stack"])).lines, [
      `debug: MachineSet ${MACHINE_SET}: boot image ami-0a1b2c3d4e5f60718 declared by the stack; the MCO leaves it alone (managedBootImages (Partial) does not select it)`,
    ]);
  });

  it("fails a deployment whose dynamic provider breaks once serialized, naming the resource and the host's error", async () => {
    const statePath = path.join(dir, "broken.json");
    const result = await deploy({
      project: loadProject(BROKEN_PROVIDER),
      kubeconfigPath: sim.kubeconfigPath,
      statePath,
    });
    assert.equal(result.ok, false);
    assert.deepEqual(result.errors, ["Resource shadowed-global: fetch failed"]);
    const state = JSON.parse(fs.readFileSync(statePath, "utf8"));
    assert.ok(!state.deployment.resources.some((r: { urn: string }) => r.urn.endsWith("::shadowed-global")));
  });

  it("moves a stack deployed by release 0.1.0 without replacing anything, at preview and up: its pool's two waiters are one, the baselines go", async () => {
    const statePath = path.join(dir, "from-0.1.0.json");
    fs.copyFileSync(CHECKPOINT_0_1_0, statePath);
    const planned = await preview(options([], { statePath }));
    assert.deepEqual(planned.errors, []);
    // Every object is the same; the waiters that now keep the rollout record (and name the pool's
    // MachineSets) are updated in place; what they took over is deleted, which waits for nothing. The
    // MachineSet's template gains the record of its node labels and taints, which the pool's new
    // NodeLabelsAndTaints writes on the running machines (no machine is replaced).
    assert.deepEqual(changes(planned).sort(), [
      "create infra-node-labels",
      "delete 99-infra-motd-rollout-baseline",
      "delete infra-machines-ready",
      "delete infra-rollout-baseline",
      "update 99-infra-motd-removal",
      "update 99-infra-motd-rollout",
      "update infra-machines-removal",
      "update infra-pool-rollout",
      "update infra-us-east-2a",
    ]);
    // The removal guards are unchanged but for this suite's simulator, another API server than the one
    // the checkpoint was written against, which any waiter that reaches the cluster updates for; the
    // MachineSets' guard also learns the pool's UID it now checks (`created`, new since 0.1.0).
    const guardDiffs = Object.fromEntries(
      planned.plan.filter((s) => s.name.endsWith("-removal")).map((s) => [s.name, s.diffs]),
    );
    assert.deepEqual(guardDiffs, {
      "99-infra-motd-removal": ["kubeconfig"],
      "infra-machines-removal": ["created", "kubeconfig"],
    });
    const urns = (resources: Array<{ urn: string }>) => resources.map((r) => r.urn);
    const before = JSON.parse(fs.readFileSync(CHECKPOINT_0_1_0, "utf8")) as {
      deployment: { resources: Array<{ urn: string }> };
    };
    for (const step of planned.plan.filter((p) => p.op !== "delete" && p.op !== "read" && p.op !== "create"))
      assert.ok(urns(before.deployment.resources).includes(step.urn), `${step.urn} keeps its URN`);

    // Up moves it as planned. The checkpoint's objects stand for this cluster's (the first test made
    // them): their UIDs are this cluster's, as in a stack that release 0.1.0 deployed here, so that
    // the guards' and waiters' UID checks find the objects they hold.
    const text = checkpointOnCluster(sim, CHECKPOINT_0_1_0);
    fs.writeFileSync(statePath, text);
    const uids = () =>
      [
        keyOf(K.pool, "infra"),
        keyOf(K.machineSet, MACHINE_SET, "openshift-machine-api"),
        keyOf(K.machineConfig, "99-infra-motd"),
      ].map((key) => sim.store.get(key)!.metadata.uid);
    const objects = uids();
    const moved = await deploy(options([], { statePath }));
    assert.deepEqual(moved.errors, []);
    assert.deepEqual(changes(moved).sort(), changes(planned).sort());
    assert.deepEqual(uids(), objects, "no object was replaced");
    const after = JSON.parse(fs.readFileSync(statePath, "utf8")) as typeof before;
    assert.ok(!urns(after.deployment.resources).some((urn) => /baseline|machines-ready/.test(urn)));
  });

  it("places an operator on the infra nodes by one line, creates its custom resource in the same up on a cluster without its CRDs, and removes both with it; installs and removes an OLM v1 extension", async () => {
    const crd = (name: string) =>
      sim.store.get({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name });
    assert.equal(crd("localvolumes.local.storage.openshift.io"), undefined, "no CRD before the up");
    const planned = await preview(options(["replicas=3", "operator=true", "extension=true"]));
    assert.deepEqual(planned.errors, []);
    const up = await deploy(options(["replicas=3", "operator=true", "extension=true"]));
    assert.deepEqual(up.errors, []);
    assert.deepEqual(changes(up).sort(), changes(planned).sort());
    const ns = "openshift-local-storage";
    const deployment = sim.store.get({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "local-storage-operator",
      namespace: ns,
    })!;
    const pod = (deployment.spec as { template: { spec: { nodeSelector: object; tolerations: object[] } } })
      .template.spec;
    assert.deepEqual(pod.nodeSelector, { "node-role.kubernetes.io/infra": "" });
    assert.equal(pod.tolerations.length, 2);
    const pods = sim.store.list("v1", "Pod", { namespace: ns });
    assert.equal(pods.length, 1);
    const node = sim.store.get({
      apiVersion: "v1",
      kind: "Node",
      name: (pods[0].spec as { nodeName: string }).nodeName,
    })!;
    assert.ok(
      "node-role.kubernetes.io/infra" in (node.metadata.labels ?? {}),
      "the operator runs on an infra node",
    );
    const volume = sim.store.get({
      apiVersion: "local.storage.openshift.io/v1",
      kind: "LocalVolume",
      name: "local-disks",
      namespace: ns,
    })!;
    // The operator finalizes its LocalVolumes: deleting them after it would hang.
    assert.deepEqual(volume.metadata.finalizers, ["storage.openshift.com/local-volume-protection"]);

    // OLM v1: the extension installed the highest version of its channel within the range.
    assert.equal(up.outputs.gitopsVersion, "1.14.2");
    const extension = sim.store.get({
      apiVersion: "olm.operatorframework.io/v1",
      kind: "ClusterExtension",
      name: "openshift-gitops-operator",
    })!;
    assert.deepEqual(extension.metadata.finalizers?.length, 2);
    assert.ok(crd("argocds.argoproj.io"), "the extension's CRD is installed");

    const removed = await deploy(options(["replicas=3", "operator=false", "extension=false"]));
    assert.deepEqual(removed.errors, []);
    assert.equal(
      sim.store.get({
        apiVersion: "olm.operatorframework.io/v1",
        kind: "ClusterExtension",
        name: "openshift-gitops-operator",
      }),
      undefined,
    );
    assert.equal(crd("argocds.argoproj.io"), undefined, "uninstalling the extension removed its CRD");
    assert.equal(crd("localvolumes.local.storage.openshift.io"), undefined, "no CRD left behind");
    assert.equal(crd("localvolumesets.local.storage.openshift.io"), undefined);
    assert.deepEqual(
      sim.store.list("operators.coreos.com/v1alpha1", "ClusterServiceVersion", { namespace: ns }),
      [],
    );
  });

  it("destroys the stack, dependents first, and leaves nothing of it in the cluster", async () => {
    // Someone deleted the stack's MachineConfig and made their own of that name: pulumi-kubernetes deletes
    // by name (provider/pkg/await/await.go, Deletion), so destroy takes it too, and its removal guard
    // awaits that rollout as its own (a name held anew once the guard runs is left alone: e2e.test.ts).
    const ours = sim.store.get(keyOf(K.machineConfig, "99-infra-motd"))!;
    sim.store.delete(keyOf(K.machineConfig, "99-infra-motd"));
    const theirs = sim.store.create(machineConfig("99-infra-motd", { "/etc/motd": "theirs\n" }, "infra"));
    assert.notEqual(theirs.metadata.uid, ours.metadata.uid);
    const down = await destroy(options());
    assert.deepEqual(down.errors, []);
    assert.equal(down.counts.delete, 8);
    const order = down.plan.map((s) => s.name);
    assert.ok(order.indexOf("infra-pool-rollout") < order.indexOf("infra-pool"));
    assert.ok(order.indexOf("infra-us-east-2a") < order.indexOf("infra-machines-removal"));
    assert.equal(sim.store.get(keyOf(K.machineSet, MACHINE_SET, "openshift-machine-api")), undefined);
    assert.equal(sim.store.get(keyOf(K.machineConfig, "99-infra-motd")), undefined);
    assert.equal(sim.store.get(keyOf(K.pool, "infra")), undefined);
    const state = JSON.parse(fs.readFileSync(path.join(dir, "state.json"), "utf8"));
    assert.deepEqual(
      state.deployment.resources.filter(
        (r: { custom: boolean; type: string }) => r.custom && !r.type.startsWith("pulumi:providers:"),
      ),
      [],
    );
  });
});
