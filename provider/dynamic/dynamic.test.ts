import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { mocks, resetMocks, settle } from "../../test/mocks";
import { changedInputs, contentHash, durationSeconds, providerProgress, timeoutsFrom } from "./common";
import {
  MachineSetReady,
  NodeConfigRemoval,
  MachineSetRemoval,
  OperatorInstall,
  OperatorRemoval,
  PoolRollout,
  WindowsNodesReady,
} from "./index";
import { subscribeProgress } from "../waiting";
import { defineWaiter, labelMap, objectName, objectNames, oneOf, output } from "./schema";
import {
  createMachineSet,
  DEADLINE_MS,
  K,
  keyOf,
  machineConfig,
  poolTarget,
  Simulator,
  startTestSimulator,
  subscribeToWmco,
  workerNodes,
} from "../../test/simulator-fixture";

// The serialized provider runs as Pulumi's dynamic-provider host runs it.
const requireFromString = require("require-from-string") as (code: string) => { handler: () => Provider };

interface Provider {
  check(olds: object, news: object): Promise<{ failures?: Array<{ property: string; reason: string }> }>;
  diff(id: string, olds: object, news: object): Promise<{ changes?: boolean; replaces?: string[] }>;
  create(inputs: object): Promise<{ id: string; outs: Record<string, unknown> }>;
  update(id: string, olds: object, news: object): Promise<{ outs: Record<string, unknown> }>;
  read(id: string, props: object): Promise<{ id: string; props: Record<string, unknown> }>;
  delete(id: string, props: object): Promise<void>;
}

const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "https://127.0.0.1:6443" } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`;

const provider = (p: unknown) => p as Provider;

/** The registered inputs of the one resource of `type`, as the engine would receive them. */
async function registered(type: string): Promise<Record<string, unknown>> {
  await settle();
  const resource = mocks.resources.find((r) => r.type === type);
  assert.ok(resource, `${type} registered`);
  return resource.inputs;
}

function unwrapSecret(value: unknown): string {
  const secret = value as Record<string, unknown>;
  assert.equal(secret[SECRET_SIG], "1b47061264138c4ac30d75fd1eb44270", "the kubeconfig input is a secret");
  return secret.value as string;
}

describe("waiter providers: check and diff", () => {
  const base = {
    kubeconfig: KUBECONFIG,
    pool: "worker",
    machineConfigs: ["99-worker-chrony"],
    contentHash: "a",
  };

  it("accepts valid inputs and names each invalid property", async () => {
    assert.deepEqual((await provider(PoolRollout.provider).check({}, base)).failures, []);
    const bad = await provider(PoolRollout.provider).check(
      {},
      {
        ...base,
        kubeconfig: "clusters: [",
        pool: "Worker_Pool",
        machineConfigs: ["ok", ""],
        timeoutSeconds: -1,
      },
    );
    assert.deepEqual(
      bad.failures?.map((f) => f.property),
      ["kubeconfig", "timeoutSeconds", "pool", "machineConfigs[1]"],
    );
    assert.match(
      bad.failures?.find((f) => f.property === "pool")?.reason ?? "",
      /pool must be a Kubernetes object name/,
    );
    const empty = await provider(MachineSetReady.provider).check(
      {},
      { kubeconfig: KUBECONFIG, machineSets: [] },
    );
    assert.deepEqual(empty.failures, [
      { property: "machineSets", reason: "machineSets needs at least one name" },
    ]);
    const replacing = (machineReplacement: unknown) =>
      provider(MachineSetReady.provider).check(
        {},
        { kubeconfig: KUBECONFIG, machineSets: ["a"], machineReplacement },
      );
    const policy = { maxSurge: 1, maxUnavailable: 0, replicas: { a: 3 } };
    assert.deepEqual((await replacing(policy)).failures, []);
    assert.deepEqual((await replacing({ ...policy, maxSurge: "25%" })).failures, []);
    const failure = {
      property: "machineReplacement",
      reason:
        "machineReplacement needs maxSurge and maxUnavailable (0 or more, or a percentage) and replicas per MachineSet (0 or more)",
    };
    assert.deepEqual((await replacing({ ...policy, replicas: { a: -1 } })).failures, [failure]);
    assert.deepEqual((await replacing({ ...policy, maxUnavailable: "25" })).failures, [failure]);
    const removal = await provider(NodeConfigRemoval.provider).check(
      {},
      {
        kubeconfig: KUBECONFIG,
        pool: "worker",
        kind: "Machineconfig",
        name: "99-x",
        deleteTimeoutSeconds: 0,
      },
    );
    assert.deepEqual(removal.failures, [
      {
        property: "kind",
        reason:
          'kind must be one of MachineConfig, KubeletConfig, ContainerRuntimeConfig, got "Machineconfig"',
      },
      {
        property: "deleteTimeoutSeconds",
        reason: "deleteTimeoutSeconds must be a positive number of seconds, got 0",
      },
    ]);
  });

  it("leaves values unknown during preview alone", async () => {
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    const result = await provider(PoolRollout.provider).check(
      {},
      { kubeconfig: unknown, pool: unknown, machineConfigs: unknown },
    );
    assert.deepEqual(result.failures, []);
  });

  it("shows no diff for an unchanged program and an update, never a replacement, for a changed one", async () => {
    const outputs = { ...base, renderedConfig: "rendered-worker-1", machineCount: 3, durationSeconds: 12 };
    assert.deepEqual(await provider(PoolRollout.provider).diff("pool/worker", outputs, base), {
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    const changed = await provider(PoolRollout.provider).diff("pool/worker", outputs, {
      ...base,
      contentHash: "b",
    });
    assert.equal(changed.changes, true);
    assert.deepEqual(changed.replaces, []);
    const keys = ["kubeconfig", "pool", "machineConfigs", "contentHash", "timeoutSeconds"];
    assert.deepEqual(
      changedInputs(
        outputs,
        { ...base, contentHash: "b", machineConfigs: ["99-worker-chrony", "99-x"] },
        keys,
      ),
      ["machineConfigs", "contentHash"],
    );
    assert.deepEqual(changedInputs({ machineConfigs: [] }, {}, ["machineConfigs"]), []);
  });

  it("hashes content independently of key order", () => {
    assert.equal(contentHash({ a: 1, b: { c: [1, 2] } }), contentHash({ b: { c: [1, 2] }, a: 1 }));
    assert.notEqual(contentHash({ a: 1 }), contentHash({ a: 2 }));
  });

  it("turns customTimeouts into timeout inputs", () => {
    assert.equal(durationSeconds("1h30m"), 5400);
    assert.equal(durationSeconds("90s"), 90);
    assert.throws(() => durationSeconds("ten minutes"), /cannot read the duration "ten minutes"/);
    assert.deepEqual(
      timeoutsFrom(undefined, { customTimeouts: { create: "20m", update: "45m", delete: "10m" } }),
      {
        timeoutSeconds: 2700,
        deleteTimeoutSeconds: 600,
      },
    );
    assert.equal(timeoutsFrom(60, { customTimeouts: { create: "20m" } }).timeoutSeconds, 60);
  });
});

describe("a waiter declared from a schema", () => {
  beforeEach(() => resetMocks());

  // A waiter of this test's own: its core is an arrow here, serialized by value like any other.
  const Probe = defineWaiter({
    kind: "SchemaProbe",
    inputs: {
      pool: objectName({ required: true }),
      machineSets: objectNames({ required: true }),
      nodeLabels: labelMap(),
      phase: oneOf(["Before", "After"]),
    },
    outputs: { count: output<number>(), version: output(""), timings: output<{ s: number } | null>(null) },
    id: (inputs) => `probe/${inputs.pool}`,
    wait: async (options) => ({ result: { count: options.machineSets.length } }),
    observe: async (options) => ({
      state: "done",
      message: "probed",
      result: { count: options.machineSets.length },
    }),
  });

  async function deserializedProbe(): Promise<{ inputs: Record<string, unknown>; provider: Provider }> {
    const probe = new Probe("probe", {
      kubeconfig: KUBECONFIG,
      pool: "p",
      machineSets: ["a", "b"],
      phase: "After",
    });
    assert.ok(pulumi.Output.isInstance(probe.count) && pulumi.Output.isInstance(probe.pool));
    const registeredInputs = await registered("pulumi-nodejs:dynamic:SchemaProbe");
    const inputs = { ...registeredInputs, kubeconfig: unwrapSecret(registeredInputs.kubeconfig) };
    return { inputs, provider: requireFromString(registeredInputs.__provider as string).handler() };
  }

  it("serializes a provider that rejects bad inputs with their property paths, in declared order", async () => {
    const { inputs, provider } = await deserializedProbe();
    assert.deepEqual((await provider.check({}, inputs)).failures, []);
    const bad = await provider.check(
      {},
      { ...inputs, pool: undefined, machineSets: ["a", "Not_A_Name"], nodeLabels: { a: 1 }, phase: "During" },
    );
    assert.deepEqual(bad.failures, [
      { property: "pool", reason: "pool is required" },
      {
        property: "machineSets[1]",
        reason: 'machineSets[1] must be a Kubernetes object name (lowercase DNS subdomain), got "Not_A_Name"',
      },
      { property: "nodeLabels", reason: "nodeLabels must map label names to string values" },
      { property: "phase", reason: 'phase must be one of Before, After, got "During"' },
    ]);
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    assert.deepEqual((await provider.check({}, { ...inputs, pool: unknown, phase: unknown })).failures, []);
  });

  it("echoes its inputs and sets every output, absent ones as their fallback or null", async () => {
    const { inputs, provider } = await deserializedProbe();
    const created = await provider.create(inputs);
    assert.equal(created.id, "probe/p");
    const { durationSeconds: seconds, ...outs } = created.outs;
    assert.equal(typeof seconds, "number");
    assert.deepEqual(outs, {
      kubeconfig: KUBECONFIG,
      pool: "p",
      machineSets: ["a", "b"],
      phase: "After",
      count: 2,
      version: "",
      timings: null,
    });
    // Read prefers the process's kubeconfig when it reaches the same cluster: here, the same one.
    const ambient = process.env.KUBECONFIG;
    process.env.KUBECONFIG = join(mkdtempSync(join(tmpdir(), "probe-")), "kubeconfig");
    writeFileSync(process.env.KUBECONFIG, KUBECONFIG);
    const read = await provider.read(created.id, created.outs).finally(() => {
      if (ambient === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = ambient;
    });
    assert.equal(read.props.converged, true);
    assert.equal(read.props.timings, null);
  });

  it("keeps on read an output the observation cannot see, such as what the last wait learned", async () => {
    const { inputs, provider } = await deserializedProbe();
    const created = await provider.create(inputs);
    const learned = { ...created.outs, count: 5, timings: { s: 42 } };
    const read = await provider.read(created.id, learned);
    assert.equal(read.props.count, 2, "what the observation reports replaces the old value");
    assert.deepEqual(read.props.timings, { s: 42 }, "what it does not report stays");
  });
});

describe("waiter progress outside the process", () => {
  it("appends JSON lines to OPENSHIFT_TOPOLOGY_PROGRESS_FILE for a process that runs pulumi", () => {
    const file = join(mkdtempSync(join(tmpdir(), "progress-")), "progress.jsonl");
    const saved = {
      file: process.env.OPENSHIFT_TOPOLOGY_PROGRESS_FILE,
      log: process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG,
    };
    process.env.OPENSHIFT_TOPOLOGY_PROGRESS_FILE = file;
    process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = "0";
    try {
      const sink = providerProgress("PoolRollout pool/infra");
      sink({
        waiter: "pool infra",
        state: "waiting",
        message: "pool infra: 1/3 updated -> rendered-infra-1a2b",
        done: 1,
        total: 3,
        elapsedMs: 10,
      });
      sink({
        waiter: "pool infra",
        state: "done",
        message: "pool infra: 3/3 updated -> rendered-infra-1a2b",
        done: 3,
        total: 3,
        elapsedMs: 20,
      });
    } finally {
      for (const [key, value] of [
        ["OPENSHIFT_TOPOLOGY_PROGRESS_FILE", saved.file],
        ["OPENSHIFT_TOPOLOGY_PROGRESS_LOG", saved.log],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.resource, l.state, l.done, l.total]),
      [
        ["PoolRollout pool/infra", "waiting", 1, 3],
        ["PoolRollout pool/infra", "done", 3, 3],
      ],
    );
  });
});

describe("waiter resources under the mock runtime", () => {
  beforeEach(() => resetMocks());

  it("register with self-explaining types, a secret kubeconfig and the timeouts of customTimeouts", async () => {
    new PoolRollout(
      "infra-rollout",
      { kubeconfig: KUBECONFIG, pool: "infra", machineConfigs: ["99-infra-a"] },
      { customTimeouts: { update: "40m" } },
    );
    new MachineSetReady("infra-ready", { kubeconfig: KUBECONFIG, machineSets: ["infra-a"] });
    new MachineSetRemoval(
      "infra-removal",
      { kubeconfig: KUBECONFIG, machineSets: ["infra-a"] },
      { customTimeouts: { delete: "15m" } },
    );
    new OperatorInstall("wmco", {
      kubeconfig: KUBECONFIG,
      namespace: "openshift-windows-machine-config-operator",
      subscription: "windows-machine-config-operator",
    });
    new WindowsNodesReady("windows", { kubeconfig: KUBECONFIG, machineSets: ["winworker"] });
    const rollout = await registered("pulumi-nodejs:dynamic:PoolRollout");
    assert.equal(unwrapSecret(rollout.kubeconfig), KUBECONFIG);
    assert.equal(rollout.timeoutSeconds, 2400);
    assert.equal(typeof rollout.__provider, "string");
    assert.equal((await registered("pulumi-nodejs:dynamic:MachineSetRemoval")).deleteTimeoutSeconds, 900);
    for (const type of ["MachineSetReady", "OperatorInstall", "WindowsNodesReady"]) {
      unwrapSecret((await registered(`pulumi-nodejs:dynamic:${type}`)).kubeconfig);
    }
  });
});

describe("serialization proof: the provider Pulumi serializes runs against the simulator", function () {
  this.timeout(30_000);
  let sim: Simulator;
  const quiet = process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG;

  const ambient = process.env.KUBECONFIG;

  before(async () => {
    process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = "0";
    sim = await startTestSimulator();
    // The provider host's $KUBECONFIG, as `KUBECONFIG=... pulumi up` sets it.
    process.env.KUBECONFIG = sim.kubeconfigPath;
  });
  after(async () => {
    if (quiet === undefined) delete process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG;
    else process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG = quiet;
    process.env.KUBECONFIG = ambient;
    await sim.stop();
  });
  beforeEach(() => resetMocks());

  it("deserializes a PoolRollout's __provider as the host does and create() waits for the rollout", async () => {
    new PoolRollout("worker-rollout", {
      kubeconfig: sim.kubeconfig,
      pool: "worker",
      machineConfigs: ["99-worker-serialized"],
      contentHash: contentHash({ file: "one" }),
      timeoutSeconds: DEADLINE_MS / 1000,
    });
    const inputs = await registered("pulumi-nodejs:dynamic:PoolRollout");
    const deserialized = requireFromString(inputs.__provider as string).handler();
    const news = { ...inputs, kubeconfig: unwrapSecret(inputs.kubeconfig) };
    assert.deepEqual((await deserialized.check({}, news)).failures, []);

    const lines: string[] = [];
    const unsubscribe = subscribeProgress((e) => lines.push(e.message));
    sim.store.create(machineConfig("99-worker-serialized", { "/etc/serialized.conf": "one" }));
    const created = await deserialized.create(news);
    unsubscribe();
    assert.equal(created.id, "pool/worker");
    assert.equal(created.outs.renderedConfig, poolTarget(sim));
    assert.equal(created.outs.machineCount, workerNodes(sim).length);
    assert.equal(created.outs.updatedMachineCount, created.outs.machineCount);
    assert.equal(typeof created.outs.durationSeconds, "number");
    assert.ok(
      lines.some((l) => l.startsWith("pool worker: ")),
      "progress reached the in-process channel",
    );
    for (const node of workerNodes(sim)) {
      assert.equal(
        node.metadata.annotations?.["machineconfiguration.openshift.io/currentConfig"],
        created.outs.renderedConfig,
      );
    }

    const read = await deserialized.read(created.id, created.outs);
    assert.equal(read.props.converged, true);
    assert.match(String(read.props.status), /pool worker: 3\/3 updated/);

    const mc = sim.store.get(keyOf(K.machineConfig, "99-worker-serialized"))!;
    sim.store.update({
      ...machineConfig("99-worker-serialized", { "/etc/serialized.conf": "two" }),
      metadata: mc.metadata,
    });
    const changed = { ...news, contentHash: contentHash({ file: "two" }) };
    assert.equal((await deserialized.diff(created.id, created.outs, changed)).changes, true);
    const updated = await deserialized.update(created.id, created.outs, changed);
    assert.notEqual(updated.outs.renderedConfig, created.outs.renderedConfig);
    assert.equal(updated.outs.renderedConfig, poolTarget(sim));
  });

  it("a deserialized MachineSetRemoval's delete waits until its MachineSets' machines and nodes are gone", async () => {
    const role = { "node-role.kubernetes.io/infra": "" };
    createMachineSet(sim, "infra-b", { replicas: 2, nodeLabels: role });
    createMachineSet(sim, "infra-c", { replicas: 1, nodeLabels: role });
    new MachineSetReady("ready", {
      kubeconfig: sim.kubeconfig,
      machineSets: ["infra-b", "infra-c"],
      timeoutSeconds: DEADLINE_MS / 1000,
    });
    new MachineSetRemoval("removal", {
      kubeconfig: sim.kubeconfig,
      machineSets: ["infra-b", "infra-c"],
      deleteTimeoutSeconds: DEADLINE_MS / 1000,
    });
    const readyInputs = await registered("pulumi-nodejs:dynamic:MachineSetReady");
    const ready = await requireFromString(readyInputs.__provider as string)
      .handler()
      .create({ ...readyInputs, kubeconfig: unwrapSecret(readyInputs.kubeconfig) });
    const nodes = ready.outs.nodes as string[];
    assert.equal(nodes.length, 3);

    const removalInputs = await registered("pulumi-nodejs:dynamic:MachineSetRemoval");
    const removal = requireFromString(removalInputs.__provider as string).handler();
    const created = await removal.create({
      ...removalInputs,
      kubeconfig: unwrapSecret(removalInputs.kubeconfig),
    });
    assert.equal(created.id, "machineset-removal/openshift-machine-api/infra-b,infra-c");
    for (const name of ["infra-b", "infra-c"])
      sim.store.delete(keyOf(K.machineSet, name, "openshift-machine-api"));
    await removal.delete(created.id, created.outs);
    for (const node of nodes) assert.equal(sim.store.get(keyOf(K.node, node)), undefined);
    const left = sim.store
      .list(K.machine.apiVersion, K.machine.kind, { namespace: "openshift-machine-api" })
      .map((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"])
      .filter((set) => set === "infra-b" || set === "infra-c");
    assert.deepEqual(left, []);
  });

  it("a deserialized OperatorInstall waits for the install, leaving the operator on delete; OperatorRemoval's delete uninstalls", async () => {
    subscribeToWmco(sim);
    const namespace = "openshift-windows-machine-config-operator";
    const target = { kubeconfig: sim.kubeconfig, namespace, subscription: "windows-machine-config-operator" };
    new OperatorInstall("wmco", { ...target, timeoutSeconds: DEADLINE_MS / 1000 });
    new OperatorRemoval("wmco-removal", { ...target, deleteTimeoutSeconds: DEADLINE_MS / 1000 });
    const deserialize = async (type: string) => {
      const inputs = await registered(`pulumi-nodejs:dynamic:${type}`);
      const provider = requireFromString(inputs.__provider as string).handler();
      return {
        provider,
        created: await provider.create({ ...inputs, kubeconfig: unwrapSecret(inputs.kubeconfig) }),
      };
    };
    const install = await deserialize("OperatorInstall");
    const csv = install.created.outs.installedCSV as string;
    assert.equal(install.created.outs.phase, "Succeeded");
    const subscriptionKey = keyOf(K.subscription, "windows-machine-config-operator", namespace);
    const csvKey = keyOf(K.csv, csv, namespace);

    // Deleting the waiter (as turning waiting off does) leaves the operator installed.
    await install.provider.delete(install.created.id, install.created.outs);
    assert.ok(sim.store.get(subscriptionKey) && sim.store.get(csvKey));

    const removal = await deserialize("OperatorRemoval");
    assert.equal(removal.created.id, `operator-removal/${namespace}/windows-machine-config-operator`);
    await removal.provider.delete(removal.created.id, removal.created.outs);
    assert.equal(sim.store.get(subscriptionKey), undefined);
    assert.equal(sim.store.get(csvKey), undefined, "OLM would have left the CSV: the removal deletes it");
  });
});
