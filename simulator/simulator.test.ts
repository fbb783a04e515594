import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as https from "node:https";
import { CoreV1Api, CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { readSeed, seedYaml } from "../test/seeds";
import { applyServerSide, kubectl, KubectlResult, kubectlMinorVersion } from "./apiserver/kubectl";
import { Simulator, startSimulator } from "./simulator";
import { findCrdDir } from "./schema/crds";
import { CRDS, requireReference, SEEDS } from "../test/reference";

const NS = "openshift-machine-api";
const INFRA = "cluster-zbwlg-cbgq7-infra-us-east-2a";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed: ${result.stderr}`);
  return result.stdout;
}

/** The MachineConfigNode conditions `oc get machineconfignodes -o wide` shows, in its order. */
const PRIMARY = [
  "Updated",
  "UpdatePrepared",
  "UpdateExecuted",
  "UpdatePostActionComplete",
  "UpdateComplete",
  "Resumed",
];
/** The seed's column headings (both spellings it uses) to condition types. */
const SEED_COLUMNS: Record<string, string> = {
  UPDATED: "Updated",
  UPDATEPREPARED: "UpdatePrepared",
  UPDATEEXECUTED: "UpdateExecuted",
  UPDATEPOSTACTIONCOMPLETED: "UpdatePostActionComplete",
  UPDATEPOSTACTIONCOMPLETE: "UpdatePostActionComplete",
  UPDATECOMPLETED: "UpdateComplete",
  UPDATECOMPLETE: "UpdateComplete",
  RESUMED: "Resumed",
};

/** The seed's first `oc get machineconfignodes` example as condition rows, e.g. `False True False False False False`. */
function seedRows(): string[] {
  const lines = readSeed("003").split("\n");
  const header = lines.findIndex((l) => /^\s*NAME\s+UPDATED\s+UPDATEPREPARED/.test(l));
  const columns = lines[header].trim().split(/\s+/).slice(1);
  const out: string[] = [];
  for (const line of lines.slice(header + 1)) {
    const cells = line.trim().split(/\s+/);
    if (!cells[0]?.startsWith("ip-")) break;
    const byType = Object.fromEntries(columns.map((c, i) => [SEED_COLUMNS[c], cells[i + 1]]));
    out.push(PRIMARY.map((t) => byType[t]).join(" "));
  }
  return out;
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe("startSimulator driven by kubectl", function () {
  this.timeout(60_000);
  let sim: Simulator;
  let minor: number | undefined;
  const run = (args: string[], input?: string) => kubectl(sim.kubeconfigPath, args, input);

  before(async function () {
    minor = kubectlMinorVersion();
    if (minor === undefined) {
      console.log("    kubectl is not installed: simulator kubectl tests skipped");
      this.skip();
    }
    sim = await startSimulator({ platform: "aws", speed: 1000 });
  });

  after(() => sim?.stop());

  it("lists the seeded nodes and pools", async () => {
    const nodes = ok(
      await run(["get", "nodes", "-o", 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}']),
    )
      .trim()
      .split("\n");
    assert.equal(nodes.length, 6);
    const pools = ok(await run(["get", "mcp"]))
      .trim()
      .split("\n");
    assert.deepEqual(
      pools.slice(1).map((l) => l.split(/\s+/)[0]),
      ["master", "worker"],
    );
  });

  it("shows the pool columns of the MachineConfigPool CRD", async () => {
    assert.match(
      ok(await run(["get", "mcp"])).split("\n")[0],
      /^NAME\s+CONFIG\s+UPDATED\s+UPDATING\s+DEGRADED\s+MACHINECOUNT\s+READYMACHINECOUNT\s+UPDATEDMACHINECOUNT\s+DEGRADEDMACHINECOUNT\s+AGE$/,
    );
  });

  it("turns seed 001's infra MachineSet into infra,worker nodes", async function () {
    requireReference(this, SEEDS);
    ok(
      await run(
        ["apply", "--server-side", "--validate=false", "-f", "-"],
        JSON.stringify(seedYaml("001", /^apiVersion: machine.openshift.io\/v1beta1/)),
      ),
    );
    ok(
      await run([
        "patch",
        "machineset",
        INFRA,
        "-n",
        NS,
        "--type=json",
        '-p=[{"op": "add", "path": "/spec/template/spec/metadata/labels", "value":{"node-role.kubernetes.io/worker":"", "node-role.kubernetes.io/infra":""} }]',
      ]),
    );
    ok(await run(["scale", "machineset", INFRA, "-n", NS, "--replicas=2"]));
    const infra = await eventually("two Ready infra nodes", async () => {
      const lines = ok(await run(["get", "nodes", "-l", "node-role.kubernetes.io/infra"]))
        .trim()
        .split("\n")
        .slice(1)
        .filter((l) => /\sReady\s/.test(l));
      return lines.length === 2 ? lines : undefined;
    });
    for (const line of infra) assert.match(line, /^\S+\s+Ready\s+infra,worker\s+/);
  });

  /** The distinct condition rows the workers' MachineConfigNodes went through during the reboot rollout below. */
  const rebootRows = new Set<string>();

  it("waits for the worker pool with kubectl wait --for=condition=Updated", async () => {
    const before = ok(await run(["get", "mcp", "worker", "-o", "jsonpath={.spec.configuration.name}"]));
    const workers = sim.cluster.workerNodes;
    const stopRecording = sim.store.subscribe(({ object }) => {
      if (object.kind !== "MachineConfigNode" || !workers.includes(object.metadata.name)) return;
      const conditions = ((object.status as { conditions?: Array<{ type: string; status: string }> })
        ?.conditions ?? []) as Array<{ type: string; status: string }>;
      rebootRows.add(PRIMARY.map((t) => conditions.find((c) => c.type === t)?.status ?? "").join(" "));
    });
    const mc = {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfig",
      metadata: {
        name: "99-worker-sim-test",
        labels: { "machineconfiguration.openshift.io/role": "worker" },
      },
      spec: {
        config: {
          ignition: { version: "3.2.0" },
          storage: { files: [{ path: "/etc/sim-test", mode: 420, contents: { source: "data:,hello" } }] },
        },
      },
    };
    ok(await run(applyServerSide(minor!), JSON.stringify(mc)));
    await eventually("a new rendered config", async () => {
      const now = ok(await run(["get", "mcp", "worker", "-o", "jsonpath={.spec.configuration.name}"]));
      return now !== before ? now : undefined;
    });
    await eventually("the rollout to finish", async () => {
      const out = ok(
        await run([
          "get",
          "mcp",
          "worker",
          "-o",
          "jsonpath={.spec.configuration.name} {.status.configuration.name} {.status.updatedMachineCount}/{.status.machineCount}",
        ]),
      );
      const [desired, current, counts] = out.split(" ");
      const [updated, total] = counts.split("/");
      return desired === current && updated === total ? out : undefined;
    });
    stopRecording();
    assert.match(
      ok(await run(["wait", "--for=condition=Updated", "mcp/worker", "--timeout=30s"])),
      /condition met/,
    );
  });

  it("took the workers through every row of the seed's `oc get machineconfignodes` example while they rebooted", function () {
    requireReference(this, SEEDS);
    const expected = seedRows();
    assert.ok(expected.length > 1, "the seed's example has a row per node");
    for (const row of expected)
      assert.ok(rebootRows.has(row), `seed row ${row} never observed in ${[...rebootRows].join(" | ")}`);
  });

  it("shows the CRD's machineconfignodes columns, and with -o wide the seed's phases, all updated", async function () {
    requireReference(this, CRDS, SEEDS);
    const workers = sim.cluster.workerNodes;
    const rows = async (args: string[]) =>
      ok(await run(["get", "machineconfignodes", ...workers, ...args]))
        .trim()
        .split("\n")
        .map((l) => l.split(/\s{2,}/));
    const [head, ...body] = await rows([]);
    assert.deepEqual(head, ["NAME", "POOLNAME", "DESIREDCONFIG", "CURRENTCONFIG", "UPDATED", "AGE"]);
    const rendered = ok(await run(["get", "mcp", "worker", "-o", "jsonpath={.status.configuration.name}"]));
    for (const [i, r] of body.entries())
      assert.deepEqual(r.slice(0, 5), [workers[i], "worker", rendered, rendered, "True"]);

    const [wideHead, ...wide] = await rows(["-o", "wide"]);
    // The seed's per-pool example: these columns, every node True False False False False False.
    const lines = readSeed("003").split("\n");
    const seedHeader = lines.find((l) =>
      /^\s*NAME\s+UPDATED\s+UPDATEPREPARED\s+UPDATEEXECUTED\s+UPDATEPOSTACTIONCOMPLETE\s/.test(l),
    )!;
    const seedRow = lines[lines.indexOf(seedHeader) + 1].trim().split(/\s+/).slice(1);
    for (const r of wide) {
      const cells = seedHeader
        .trim()
        .split(/\s+/)
        .slice(1)
        .map((c) => r[wideHead.indexOf(c)]);
      assert.deepEqual(cells, seedRow);
    }
    for (const c of ["UPDATEDFILESANDOS", "CORDONEDNODE", "DRAINEDNODE", "REBOOTEDNODE", "UNCORDONEDNODE"])
      assert.ok(wideHead.includes(c), `-o wide lacks ${c}: ${wideHead.join(" ")}`);
  });

  it("degrades a node through the control endpoint until the fault is cleared", async () => {
    const worker = sim.cluster.workerNodes[0];
    const control = (body: object) =>
      new Promise<number>((resolve, reject) => {
        const payload = JSON.stringify(body);
        const url = new URL("/simulator/faults", sim.server);
        const ca = Buffer.from(
          /certificate-authority-data: (\S+)/.exec(sim.kubeconfig)![1],
          "base64",
        ).toString();
        const req = https.request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "POST",
            ca,
            headers: {
              Authorization: `Bearer ${sim.token}`,
              "Content-Type": "application/json",
              "Content-Length": Buffer.byteLength(payload),
            },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        req.end(payload);
      });
    assert.equal(await control({ fault: "degradeNode", node: worker, reason: "disk on fire" }), 200);
    assert.match(
      ok(await run(["wait", "--for=condition=NodeDegraded", "mcp/worker", "--timeout=30s"])),
      /condition met/,
    );
    const reason = ok(
      await run([
        "get",
        "node",
        worker,
        "-o",
        "jsonpath={.metadata.annotations.machineconfiguration\\.openshift\\.io/reason}",
      ]),
    );
    assert.match(reason, /disk on fire/);
    assert.equal(await control({ fault: "clearClusterFaults" }), 200);
    // Polled rather than `kubectl wait --for=condition=X=False`, which older kubectl clients lack.
    await eventually("the pool to recover", async () => {
      const status = ok(
        await run([
          "get",
          "mcp",
          "worker",
          "-o",
          'jsonpath={.status.conditions[?(@.type=="NodeDegraded")].status}',
        ]),
      );
      return status === "False" ? status : undefined;
    });
  });
});

describe("startSimulator with @kubernetes/client-node", function () {
  let sim: Simulator;

  before(async () => {
    sim = await startSimulator({ platform: "azure", speed: 1000, crdDir: false, token: "fixed-token" });
  });

  after(() => sim?.stop());

  it("serves the seeded Azure cluster without CRD validation and cleans up on stop", async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    assert.equal(kc.getCurrentUser()?.token, "fixed-token");
    const nodes = await kc.makeApiClient(CoreV1Api).listNode();
    assert.equal(nodes.items.length, 6);
    const infra = (await kc.makeApiClient(CustomObjectsApi).getClusterCustomObject({
      group: "config.openshift.io",
      version: "v1",
      plural: "infrastructures",
      name: "cluster",
    })) as { status: { platformStatus: { type: string } } };
    assert.equal(infra.status.platformStatus.type, "Azure");
    for (const name of ["degradeNode", "driftFile", "failCsv", "clearClusterFaults", "dropWatches"]) {
      assert.ok(sim.faults.names().includes(name), name);
    }
    const path = sim.kubeconfigPath;
    await sim.stop();
    assert.equal(fs.existsSync(path), false, "the temporary kubeconfig is removed");
  });

  it("trusts only its own CA: a client of one simulator refuses another's serving certificate", async () => {
    const other = await startSimulator({ speed: 1000, crdDir: false });
    try {
      const caOf = (s: Simulator) =>
        Buffer.from(/certificate-authority-data: (\S+)/.exec(s.kubeconfig)![1], "base64").toString();
      const get = (server: string, ca: string) =>
        new Promise<number>((resolve, reject) => {
          const req = https.get(
            new URL("/version", server),
            { ca, headers: { Authorization: `Bearer ${other.token}` } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on("error", reject);
        });
      assert.equal(await get(other.server, caOf(other)), 200);
      await assert.rejects(get(other.server, caOf(sim)), (e: NodeJS.ErrnoException) => {
        assert.match(String(e.code), /UNABLE_TO_VERIFY|SELF_SIGNED|CERT/);
        return true;
      });
    } finally {
      await other.stop();
    }
  });
});

describe("startSimulator as an OpenShift from before MachineConfigNodes", function () {
  let sim: Simulator;

  before(async () => {
    sim = await startSimulator({ speed: 1000, unserved: ["machineconfignodes"] });
  });

  after(() => sim?.stop());

  it("leaves the resource out of discovery and its CRD out of the cluster, and answers 404 on its path", async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const objects = kc.makeApiClient(CustomObjectsApi);
    const group = "machineconfiguration.openshift.io";
    await assert.rejects(
      objects.listClusterCustomObject({ group, version: "v1", plural: "machineconfignodes" }),
      (e: { code?: number }) => e.code === 404,
    );
    const pools = (await objects.listClusterCustomObject({
      group,
      version: "v1",
      plural: "machineconfigpools",
    })) as { items: unknown[] };
    assert.equal(pools.items.length, 2);
    const crds = (await objects.listClusterCustomObject({
      group: "apiextensions.k8s.io",
      version: "v1",
      plural: "customresourcedefinitions",
    })) as { items: Array<{ metadata: { name: string } }> };
    const names = crds.items.map((c) => c.metadata.name);
    // CRD objects exist when the simulator has the upstream CRDs (a fresh clone without ../shared has none).
    if (findCrdDir()) assert.ok(names.includes(`machineconfigpools.${group}`), names.join(", "));
    assert.ok(!names.includes(`machineconfignodes.${group}`), names.join(", "));
    const discovery = (await objects.listClusterCustomObject({ group, version: "v1", plural: "" })) as {
      resources: Array<{ name: string }>;
    };
    const served = discovery.resources.map((r) => r.name);
    assert.ok(served.includes("machineconfigpools") && !served.includes("machineconfignodes"), served.join());
  });
});
