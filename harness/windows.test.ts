import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import {
  changes,
  deployCommandArgs,
  destroyLeavesNothing,
  missingObjects,
  refreshFindsDrift,
  revise,
} from "../test/stack-life";
import { deploy, DeployOptions, preview } from "./deploy";
import { cancelStack, loadCheckpoint } from "./engine/checkpoint";
import { pendingOperationsWarning } from "./engine/engine";
import { installedProgram } from "./installed";
import { sleep } from "./kube";
import { loadProject } from "./project";
import { reveal } from "./secrets";

const WINDOWS_POOL = path.join(__dirname, "testdata", "windows-pool");
const WMCO_NS = "openshift-windows-machine-config-operator";
const PINNED = "windows-machine-config-operator.v10.16.1";

/** The processes under `pid` (its children, theirs, ...), from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // The process ended while the list was read.
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, of] of parents) {
      if (of !== parent) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** Resolves once process `pid` has ended (gone, or a zombie no one reaped); fails if it still runs after 10 s. */
async function exited(pid: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    let state: string;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      state = stat.slice(stat.lastIndexOf(")") + 2)[0];
    } catch {
      return;
    }
    if (state === "Z") return;
    await sleep(50);
  }
  assert.fail(`process ${pid} still runs after the engine that started it was killed`);
}

/**
 * `npm run deploy -- up` of `program` in its own process, killed with SIGKILL as soon as it prints
 * `line`; returns the processes it had started.
 */
function upKilledAfter(
  program: string,
  kubeconfig: string,
  statePath: string,
  line: string,
): Promise<{ plugins: number[] }> {
  const cli = spawn(
    process.execPath,
    deployCommandArgs(["up", program, "--kubeconfig", kubeconfig, "--state", statePath]),
    { cwd: path.resolve(__dirname, ".."), stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  return new Promise((resolve, reject) => {
    let plugins: number[] | undefined;
    cli.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (plugins || !output.split("\n").some((l) => l.includes(line))) return;
      plugins = descendants(cli.pid!);
      cli.kill("SIGKILL");
    });
    cli.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    cli.on("exit", () =>
      plugins ? resolve({ plugins }) : reject(new Error(`the up ended before "${line}":\n${output}`)),
    );
  });
}

describe("a Windows pool end to end on the simulator", function () {
  this.timeout(300_000);
  let sim: Simulator;
  let dir: string;
  const suite = simulatorForSuite("harness-windows-", { speed: 500 });
  before(() => ({ sim, dir } = suite));

  const list = (apiVersion: string, kind: string, namespace?: string) =>
    sim.store.list(apiVersion, kind, namespace ? { namespace } : undefined);
  const windowsMachines = () =>
    list("machine.openshift.io/v1beta1", "Machine", "openshift-machine-api").filter(
      (m) => m.metadata.labels?.["machine.openshift.io/os-id"] === "Windows",
    );

  it("converges with only the pinned CSV installed after an up killed mid-way (its key kept and its creates under way left pending, the next up warning of them and a refresh clearing them: snapshot manager's markOperationPending and snap, deployment_executor.go printPendingOperationsWarning, refresh --clear-pending-creates, diy backend lock, pulumi cancel), scales by a revision planned exactly, finds drift made by hand, replaces its machines for a new instance type, and destroy leaves no Windows machine and no CSV", async () => {
    const statePath = path.join(dir, "state.json");
    const program = installedProgram(WINDOWS_POOL);
    // Every message at every severity, the SDK's debug lines (its gRPC responses) included.
    const said: string[] = [];
    const options = (config: string[] = []): DeployOptions => ({
      project: loadProject(program, "dev", config),
      kubeconfigPath: sim.kubeconfigPath,
      statePath,
      onDiagnostic: (d) => said.push(d.message),
    });
    const planned = await preview(options());
    assert.deepEqual(planned.errors, []);
    assert.deepEqual(
      changes(planned).sort(),
      [
        "create windows-machines-removal",
        "create windows-node-labels",
        "create windows-nodes-ready",
        // The key's generator and the Secret that carries it: a dynamic resource and a Kubernetes object.
        "create windows-private-key",
        "create windows-private-key",
        "create windows-runtime-class",
        "create windows-us-east-2a",
        "create windows-wmco-install",
        "create windows-wmco-namespace",
        "create windows-wmco-operator-group",
        "create windows-wmco-removal",
        "create windows-wmco-subscription",
      ].sort(),
      "the first preview",
    );

    // kill -9 of the engine mid-up, as it starts awaiting the Windows nodes:
    // the state written after each step keeps the generated key (the CLI's snapshot manager), the
    // plugins it started exit with it, and the next up, once `pulumi cancel` removed the lock the killed
    // one left, generates no other key.
    const killed = await upKilledAfter(
      program,
      sim.kubeconfigPath,
      statePath,
      " windows-nodes-ready creating",
    );
    // The state names the creates under way (markOperationPending): the nodes' waiter among them.
    const left = loadCheckpoint(statePath).deployment.pending_operations ?? [];
    assert.ok(
      left.some((op) => op.type === "creating" && op.resource.urn.endsWith("::windows-nodes-ready")),
      JSON.stringify(left.map((op) => [op.type, op.resource.urn])),
    );
    // Its inputs' secrets (the kubeconfig the waiter gets) are encrypted there as in the resources.
    assert.ok(!fs.readFileSync(statePath, "utf8").includes(sim.token), "no plaintext token in the state");
    const secretData = () =>
      (
        list("v1", "Secret", WMCO_NS).find((x) => x.metadata.name === "cloud-private-key") as unknown as {
          data: Record<string, string>;
        }
      ).data;
    const keyAtKill = secretData();
    assert.ok(killed.plugins.length >= 2, "the program and the dynamic-provider host were running");
    for (const pid of killed.plugins) await exited(pid);
    assert.equal(cancelStack(statePath), 1, "the killed up left its lock");
    const warnings: string[] = [];
    const up = await deploy({
      ...options(),
      onDiagnostic: (d) => void (d.severity === "warning" && d.urn === "" && warnings.push(d.message)),
    });
    assert.deepEqual(up.errors, []);
    // The CLI's warning (printPendingOperationsWarning), and the pending creates kept, as the snapshot
    // manager keeps them until a refresh clears them: their outcome needs a person to check.
    assert.deepEqual(warnings, [pendingOperationsWarning(left)]);
    assert.match(
      warnings[0],
      /^Attempting to deploy or update resources with \d+ pending operations from previous deployment\.\n {2}\* urn:pulumi:dev::\S+, interrupted while creating\n/,
    );
    assert.deepEqual(
      up.state.deployment.pending_operations?.map((op) => op.resource.urn),
      left.filter((op) => op.type === "creating").map((op) => op.resource.urn),
    );
    assert.deepEqual(missingObjects(sim, up), [], "every object the stack manages is in the cluster");
    assert.deepEqual(
      up.plan.filter((s) => !["same", "read"].includes(s.op) && s.type.startsWith("kubernetes:")),
      [],
      "every Kubernetes object was in the state the killed up wrote",
    );
    assert.ok(
      !up.plan.some((s) => s.name === "windows-private-key" && s.op !== "same"),
      "the key is not generated again",
    );
    assert.deepEqual(secretData(), keyAtKill, "the cluster keeps the key of the killed up");
    const keyResource = up.state.deployment.resources.find(
      (r) => r.urn.endsWith("::windows-private-key") && !r.type.startsWith("kubernetes:"),
    )!;
    const pemInState = reveal(keyResource.outputs!.privateKeyPem) as string;
    assert.equal(Buffer.from(Object.values(keyAtKill)[0], "base64").toString("utf8"), pemInState);
    assert.equal(up.outputs.installedCSV, PINNED);
    const nodes = up.outputs.configuredNodes as string[];
    assert.equal(nodes.length, 1);
    const node = sim.store.get({ apiVersion: "v1", kind: "Node", name: nodes[0] })!;
    assert.equal(node.metadata.labels?.["kubernetes.io/os"], "windows");

    // The generated private key is in the cluster's Secret, and nowhere in plaintext in the checkpoint.
    const keySecret = list("v1", "Secret", WMCO_NS).find((x) => x.metadata.name === "cloud-private-key")!;
    const encoded = Object.values((keySecret as unknown as { data: Record<string, string> }).data)[0];
    const pem = Buffer.from(encoded, "base64").toString("utf8");
    assert.match(pem, /PRIVATE KEY/);
    const keyStaysSecret = () => {
      const checkpoint = fs.readFileSync(statePath, "utf8");
      assert.ok(!checkpoint.includes(encoded), "the Secret's data is encrypted in the checkpoint");
      assert.ok(!checkpoint.includes(pem.split("\n")[1]), "the private key is encrypted in the checkpoint");
      // harness/secrets.ts, Redactor: nor in any message the harness could print.
      for (const leak of [encoded, pem.split("\n")[1], sim.kubeconfig])
        assert.ok(!said.some((m) => m.includes(leak)), "no key or kubeconfig in the logs");
    };
    keyStaysSecret();

    // Manual approval: the pinned CSV's plan was approved, the upgrade plan OLM queued after it was not.
    const plans = list("operators.coreos.com/v1alpha1", "InstallPlan", WMCO_NS);
    const approved = plans.filter((p) => (p.spec as { approved?: boolean }).approved);
    assert.deepEqual(
      approved.map((p) => (p.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames),
      [[PINNED]],
    );
    assert.deepEqual(
      list("operators.coreos.com/v1alpha1", "ClusterServiceVersion", WMCO_NS).map((c) => c.metadata.name),
      [PINNED],
    );

    // A second machine: its MachineSet and the waiter for its nodes; the operator's install stays.
    const second = options(["replicas=2"]);
    const scaled = await revise(second, ["update windows-nodes-ready", "update windows-us-east-2a"]);
    const scaledNodes = scaled.outputs.configuredNodes as string[];
    assert.equal(scaledNodes.length, 2);
    assert.ok(scaledNodes.includes(nodes[0]), "the first machine stays");

    // The RuntimeClass pointed by hand at another Windows build.
    // This refresh also clears the pending creates (pulumi refresh --clear-pending-creates).
    await refreshFindsDrift(
      sim,
      { ...second, clearPendingCreates: true },
      [
        "patch",
        "runtimeclass",
        "windows-2022",
        "--type=merge",
        '-p={"scheduling":{"nodeSelector":{"node.kubernetes.io/windows-build":"10.0.17763"}}}',
      ],
      { "windows-runtime-class": ["scheduling.nodeSelector.node.kubernetes.io/windows-build"] },
    );
    // Refreshes read the Secret back from the cluster: what they write keeps it encrypted.
    keyStaysSecret();
    assert.equal(loadCheckpoint(statePath).deployment.pending_operations, undefined);

    // A new instance type with a replacement policy: each new machine is configured by WMCO (as on
    // creation) before an old one goes, and up returns once both machines run the new type.
    const replacing = options(["replicas=2", "instanceType=m5a.xlarge", "replace=true"]);
    const replaced = await revise(replacing, [
      "create windows-machines-replaced",
      "update windows-nodes-ready",
      // The drift the refresh read back is undone.
      "update windows-runtime-class",
      "update windows-us-east-2a",
    ]);
    const machines = windowsMachines();
    assert.deepEqual(
      machines.map((m) => (m.spec as any).providerSpec.value.instanceType),
      ["m5a.xlarge", "m5a.xlarge"],
    );
    const replacedNodes = replaced.outputs.configuredNodes as string[];
    assert.equal(replacedNodes.length, 2);
    assert.ok(
      replacedNodes.every((n) => !scaledNodes.includes(n)),
      "every node is a new machine's",
    );
    for (const name of scaledNodes)
      assert.equal(sim.store.get({ apiVersion: "v1", kind: "Node", name }), undefined);

    await destroyLeavesNothing(sim, replacing);
    assert.deepEqual(windowsMachines(), [], "Windows machines are gone");
    for (const name of replacedNodes)
      assert.equal(sim.store.get({ apiVersion: "v1", kind: "Node", name }), undefined);
    assert.deepEqual(
      list("operators.coreos.com/v1alpha1", "ClusterServiceVersion", WMCO_NS),
      [],
      "no CSV is left",
    );
    assert.deepEqual(list("operators.coreos.com/v1alpha1", "Subscription", WMCO_NS), []);
  });
});
