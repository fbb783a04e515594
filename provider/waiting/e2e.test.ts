import { strict as assert } from "node:assert";
import { generateKeyPairSync } from "node:crypto";
import {
  ApiClient,
  createApiClient,
  isWaitError,
  ProgressEvent,
  waitForNodeConfigRemoval,
  waitForMachineSetsDeleted,
  waitForMachineSetsReady,
  uninstallOperator,
  waitForOperatorInstall,
  observeOperatorInstall,
  waitForPoolRollout,
  waitForWindowsNodes,
  waitForNodeMetadata,
} from "./index";
import {
  createMachineSet,
  DEADLINE_MS,
  holdDrainWithBudget,
  K,
  keyOf,
  machineConfig,
  poolTarget,
  Simulator,
  startTestSimulator,
  storeUntil,
  subscribeToWmco,
  workerNodes,
} from "../../test/simulator-fixture";
import { startTestServer, TestServer } from "../../simulator/apiserver/testing";
import { FakeClock, fakeClock } from "../../test/fake-clock";
import { recordingClient } from "../../test/recording-client";
import { PERSISTENCE_MS } from "./persistence";
import type { KubeObject as StoreObject } from "../../simulator/store/types";
import { AUTOSCALER_ANNOTATIONS } from "../../primitives/openshift";
import { CLUSTER_AUTOSCALER, MACHINE_AUTOSCALER } from "../../simulator/controllers/machine-autoscaler";
import { MACHINE_HEALTH_CHECK } from "../../simulator/controllers/machine-health-check";
import { kubectl } from "../../simulator/apiserver/kubectl";

const CURRENT = "machineconfiguration.openshift.io/currentConfig";
const DESIRED = "machineconfiguration.openshift.io/desiredConfig";
const NS = "openshift-machine-api";
const WMCO_NS = "openshift-windows-machine-config-operator";

function currentConfigs(sim: Simulator): string[] {
  return [...new Set(workerNodes(sim).map((n) => n.metadata.annotations?.[CURRENT] ?? ""))];
}

function renderedFiles(sim: Simulator, rendered: string): Record<string, string> {
  const mc = sim.store.get(keyOf(K.machineConfig, rendered));
  const files =
    (mc?.spec as { config: { storage?: { files?: Array<{ path: string; contents: { source: string } }> } } })
      .config.storage?.files ?? [];
  const decode = (source: string) => {
    const [meta, data] = [source.slice(5, source.indexOf(",")), source.slice(source.indexOf(",") + 1)];
    return meta.endsWith(";base64") ? Buffer.from(data, "base64").toString() : decodeURIComponent(data);
  };
  return Object.fromEntries(files.map((f) => [f.path, decode(f.contents.source)]));
}

/** `watch nodes`, `list machineconfigpools` or `get machineconfigs`: what a request did to which resource. */
function describeRequest(path: string): string {
  const url = new URL(path, "https://api");
  const segments = url.pathname.split("/").filter(Boolean);
  // /api/v1/... or /apis/<group>/<version>/..., then an optional namespaces/<ns>.
  let rest = segments.slice(segments[0] === "api" ? 2 : 3);
  if (rest[0] === "namespaces" && rest.length > 2) rest = rest.slice(2);
  const verb = url.searchParams.get("watch") === "true" ? "watch" : rest.length > 1 ? "get" : "list";
  return `${verb} ${rest[0]}`;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

async function expectWaitError(promise: Promise<unknown>, kind: string, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(isWaitError(e), `not a WaitError: ${String(e)}`);
    assert.equal(e.kind, kind, e.message);
    assert.match(e.message, pattern);
    return true;
  });
}

/**
 * Wait options under which a failure the controllers retry lasts: the wait runs on a clock of its own,
 * which jumps past PERSISTENCE_MS once the wait reports `pattern` as a failure it is timing (OLM and the
 * machine-config daemon would keep failing meanwhile). The deadline is far enough not to come first.
 */
function persisting(pattern: RegExp) {
  const clock = fakeClock();
  let jumped = false;
  return {
    clock,
    timeoutMs: 6 * PERSISTENCE_MS,
    progressIntervalMs: 0,
    onProgress: (e: ProgressEvent) => {
      if (jumped || !pattern.test(e.message) || !/final after/.test(e.message)) return;
      jumped = true;
      setImmediate(() => clock.advance(PERSISTENCE_MS));
    },
  };
}

/** A Subscription `no-group/wmco` in a namespace without an OperatorGroup, which OLM cannot resolve. */
function subscribeWithoutOperatorGroup(sim: Simulator): void {
  sim.store.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "no-group" } });
  sim.store.create({
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "Subscription",
    metadata: { name: "wmco", namespace: "no-group" },
    spec: {
      channel: "stable",
      name: "windows-machine-config-operator",
      source: "redhat-operators",
      sourceNamespace: "openshift-marketplace",
    },
  });
}

/** The `cloud-private-key` Secret WMCO needs before it configures any Windows node. */
function createPrivateKeySecret(sim: Simulator): void {
  sim.store.create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "cloud-private-key", namespace: WMCO_NS },
    stringData: {
      "private-key.pem": generateKeyPairSync("rsa", { modulusLength: 2048 })
        .privateKey.export({ type: "pkcs1", format: "pem" })
        .toString(),
    },
  });
}

function createWindowsMachineSet(sim: Simulator, name: string, replicas: number): void {
  createMachineSet(sim, name, {
    replicas,
    machineLabels: { "machine.openshift.io/os-id": "Windows" },
    nodeLabels: { "node-role.kubernetes.io/worker": "" },
    providerSpec: {
      ami: { id: "ami-0windows2022" },
      userDataSecret: { name: "windows-user-data", namespace: NS },
    },
  });
}

/**
 * Starts a wait and creates an object once the wait has reported it missing and watches its resource
 * (`plural`): the list that watch started from did not have it, so only the watch can bring it.
 * Resolves with the wait's outcome, which it requires to have gone through that state.
 */
async function createdLate<T>(
  kubeconfig: string,
  plural: string,
  wait: (access: {
    client: ApiClient;
    onProgress: (e: ProgressEvent) => void;
    progressIntervalMs: number;
  }) => Promise<T>,
  missing: RegExp,
  create: () => void,
): Promise<T> {
  const state = { reported: false, watched: false, created: false };
  const createOnce = () => {
    if (!state.reported || !state.watched || state.created) return;
    state.created = true;
    create();
  };
  const client = createApiClient(kubeconfig, {
    onRequest: (_method, path) => {
      if (describeRequest(path) !== `watch ${plural}`) return;
      state.watched = true;
      createOnce();
    },
  });
  const outcome = await wait({
    client,
    progressIntervalMs: 0,
    onProgress: (e) => {
      if (!missing.test(e.message)) return;
      state.reported = true;
      createOnce();
    },
  });
  assert.ok(state.created, `the wait never reported ${missing} while watching ${plural}`);
  return outcome;
}

describe("waiting core against the simulator", function () {
  this.timeout(30_000);
  let sim: Simulator;
  let kubeconfig: string;
  const rollout = (options: Omit<Parameters<typeof waitForPoolRollout>[0], "timeoutMs">) =>
    waitForPoolRollout({ kubeconfig, timeoutMs: DEADLINE_MS, ...options });

  before(async () => {
    sim = await startTestSimulator();
    kubeconfig = sim.kubeconfig;
  });
  after(() => sim.stop());
  afterEach(() => {
    sim.faults.reset();
    sim.faults.inject("clearClusterFaults");
  });

  describe("pool rollouts", () => {
    it("rolls out a new MachineConfig and resolves only once every node runs the new render (the race)", async () => {
      const before = poolTarget(sim);
      const progress: ProgressEvent[] = [];
      sim.store.create(machineConfig("99-worker-race", { "/etc/race.conf": "one" }));
      const sent: string[] = [];
      const paths: string[] = [];
      const client = createApiClient(kubeconfig, {
        onRequest: (_method, path) => {
          sent.push(describeRequest(path));
          paths.push(decodeURIComponent(path));
        },
      });
      // Started right after the create, while the pool still says Updated=True for the old render.
      const { result, requests } = await rollout({
        client,
        pool: "worker",
        machineConfigs: ["99-worker-race"],
        progressIntervalMs: 0,
        onProgress: (e) => progress.push(e),
      });
      assert.notEqual(result.renderedConfig, before);
      assert.equal(result.renderedConfig, poolTarget(sim));
      assert.deepEqual(currentConfigs(sim), [result.renderedConfig]);
      assert.equal(renderedFiles(sim, result.renderedConfig)["/etc/race.conf"], "one");
      assert.equal(result.updatedMachineCount, result.machineCount);
      // The pool's list and watch and the MachineConfig's read, plus for the phases the pool's nodes'
      // list and watch and each node's MachineConfigNode by name (named as its node: upgrade_monitor.go
      // GenerateAndApplyMachineConfigNodes), a list and a watch each: the first list both finds out
      // that the cluster serves them and seeds its watch.
      const nodes = workerNodes(sim);
      assert.ok(requests <= 5 + 2 * nodes.length, `${requests} requests: ${sent.join("; ")}`);
      assert.deepEqual(
        [
          ...new Set(
            paths
              .filter((p) => p.includes("/machineconfignodes?"))
              .map((p) => new URL(p, "https://api").searchParams.get("fieldSelector")),
          ),
        ].sort(),
        nodes.map((n) => `metadata.name=${n.metadata.name}`).sort(),
      );
      assert.ok(progress.some((e) => /^pool worker: [0-2]\/3 updated -> rendered-worker-/.test(e.message)));
      // The MachineConfigNodes say which node is in which phase.
      assert.ok(
        progress.some((e) =>
          /; ip-\S+ (draining|rebooting|applying files and OS|preparing)\b/.test(e.message),
        ),
        progress.map((e) => e.message).join("\n"),
      );
      assert.equal(progress[progress.length - 1].state, "done");
      // Learned from the nodes' phase transitions on the cluster's clock, where the simulator's drain
      // and reboot steps (DELAYS in context.ts) take at least 2 s and 4 s.
      const learned = result.learnedTimings;
      assert.ok(learned?.drainSeconds !== undefined && learned.drainSeconds >= 2, JSON.stringify(learned));
      assert.ok(learned?.rebootSeconds !== undefined && learned.rebootSeconds >= 4, JSON.stringify(learned));
    });

    it("waits again for a MachineConfig changed in place, whose name the render already lists", async () => {
      const before = poolTarget(sim);
      const mc = sim.store.get(keyOf(K.machineConfig, "99-worker-race"))!;
      sim.store.update({
        ...machineConfig("99-worker-race", { "/etc/race.conf": "two" }),
        metadata: mc.metadata,
      });
      const { result } = await rollout({ pool: "worker", machineConfigs: ["99-worker-race"] });
      assert.notEqual(result.renderedConfig, before);
      assert.equal(renderedFiles(sim, result.renderedConfig)["/etc/race.conf"], "two");
      assert.deepEqual(currentConfigs(sim), [result.renderedConfig]);
    });

    it("waits until a deleted MachineConfig has left the render on every node", async () => {
      const before = poolTarget(sim);
      sim.store.delete(keyOf(K.machineConfig, "99-worker-race"));
      const { result } = await rollout({ pool: "worker", deletedMachineConfigs: ["99-worker-race"] });
      assert.notEqual(result.renderedConfig, before);
      assert.equal(renderedFiles(sim, result.renderedConfig)["/etc/race.conf"], undefined);
      assert.deepEqual(currentConfigs(sim), [result.renderedConfig]);
    });

    it("waits for a MachineConfig's removal from its pool, unless it was kept or the pool is gone", async () => {
      sim.store.create(machineConfig("99-worker-removed", { "/etc/removed.conf": "x" }));
      const { result: added } = await rollout({ pool: "worker", machineConfigs: ["99-worker-removed"] });
      const removal = {
        kubeconfig,
        pool: "worker",
        kind: "MachineConfig" as const,
        name: "99-worker-removed",
        timeoutMs: DEADLINE_MS,
      };
      // Still there and not being deleted: only its guard went.
      const kept = await waitForNodeConfigRemoval(removal);
      assert.match(kept.message, /is not being deleted: it was kept/);
      assert.equal(poolTarget(sim), added.renderedConfig);

      sim.store.delete(keyOf(K.machineConfig, "99-worker-removed"));
      const { result } = await waitForNodeConfigRemoval(removal);
      assert.notEqual(result?.renderedConfig, added.renderedConfig);
      assert.equal(renderedFiles(sim, result!.renderedConfig)["/etc/removed.conf"], undefined);
      assert.deepEqual(currentConfigs(sim), [result!.renderedConfig]);

      const gone = await waitForNodeConfigRemoval({ ...removal, pool: "no-such-pool" });
      assert.match(gone.message, /the pool is gone, nothing to roll out/);
    });

    it("leaves a MachineConfig of the same name that someone created anew alone, before or during the wait", async () => {
      // The guard runs after the stack deleted its object (pulumi-kubernetes deletes by name:
      // pulumi/pulumi-kubernetes, provider/pkg/await/await.go, Deletion): what holds the name and is not
      // being deleted was made by someone else since, and its render is not this removal's to await.
      const name = "99-worker-stranger";
      sim.store.create(machineConfig(name, { "/etc/stranger.conf": "ours" }));
      const { result: ours } = await rollout({ pool: "worker", machineConfigs: [name] });
      const removal = { kubeconfig, pool: "worker", kind: "MachineConfig" as const, name };
      sim.store.delete(keyOf(K.machineConfig, name));
      let recreated: StoreObject | undefined;
      const during = await waitForNodeConfigRemoval({
        ...removal,
        timeoutMs: DEADLINE_MS,
        onProgress: () => {
          // Once the wait has begun: someone applies their own MachineConfig under the name.
          recreated ??= sim.store.create(machineConfig(name, { "/etc/stranger.conf": "theirs" }));
        },
      });
      assert.ok(recreated?.metadata.uid);
      assert.equal(during.result, undefined);
      assert.match(
        during.message,
        new RegExp(`MachineConfig ${name} \\(uid ${recreated.metadata.uid}, created .+\\) was created anew`),
      );
      const atStart = await waitForNodeConfigRemoval({ ...removal, timeoutMs: DEADLINE_MS });
      assert.match(atStart.message, new RegExp(`uid ${recreated.metadata.uid}.*is not being deleted`));
      assert.equal(atStart.requests, 1, "one read, no wait");
      // The stranger's MachineConfig rolls out as anyone's does; then it leaves with its own removal.
      const { result: theirs } = await rollout({ pool: "worker", machineConfigs: [name] });
      assert.notEqual(theirs.renderedConfig, ours.renderedConfig);
      assert.equal(renderedFiles(sim, theirs.renderedConfig)["/etc/stranger.conf"], "theirs");
      sim.store.delete(keyOf(K.machineConfig, name));
      const { result: gone } = await waitForNodeConfigRemoval({ ...removal, timeoutMs: DEADLINE_MS });
      assert.equal(renderedFiles(sim, gone!.renderedConfig)["/etc/stranger.conf"], undefined);
    });

    it("follows a KubeletConfig through its generated MachineConfig, created and removed", async () => {
      const before = poolTarget(sim);
      sim.store.create({
        apiVersion: "machineconfiguration.openshift.io/v1",
        kind: "KubeletConfig",
        metadata: { name: "max-pods" },
        spec: {
          machineConfigPoolSelector: {
            matchLabels: { "pools.operator.machineconfiguration.openshift.io/worker": "" },
          },
          kubeletConfig: { maxPods: 300 },
        },
      });
      const { result } = await rollout({ pool: "worker", kubeletConfigs: ["max-pods"] });
      assert.notEqual(result.renderedConfig, before);
      assert.match(
        renderedFiles(sim, result.renderedConfig)["/etc/kubernetes/kubelet.conf"],
        /"maxPods": 300/,
      );
      assert.deepEqual(currentConfigs(sim), [result.renderedConfig]);
      // Removed, it is followed through the MachineConfig generated from it, which its guard cannot name.
      sim.store.delete(keyOf(K.kubeletConfig, "max-pods"));
      const removed = await waitForNodeConfigRemoval({
        kubeconfig,
        pool: "worker",
        kind: "KubeletConfig",
        name: "max-pods",
        timeoutMs: DEADLINE_MS,
      });
      assert.notEqual(removed.result?.renderedConfig, result.renderedConfig);
      assert.doesNotMatch(
        renderedFiles(sim, removed.result!.renderedConfig)["/etc/kubernetes/kubelet.conf"],
        /"maxPods": 300/,
      );
      assert.deepEqual(currentConfigs(sim), [removed.result!.renderedConfig]);
    });

    /** Creates a MachineConfig and resolves with the first worker node the MCO hands its render. */
    async function handedTarget(name: string): Promise<string> {
      const before = poolTarget(sim);
      sim.store.create(machineConfig(name, { [`/etc/${name}.conf`]: "x" }));
      return storeUntil(sim, "a node handed the new target", () => {
        const target = poolTarget(sim);
        if (target === before) return undefined;
        return workerNodes(sim).find((n) => n.metadata.annotations?.[DESIRED] === target)?.metadata.name;
      });
    }

    it("fails naming the degraded node and its reason once the failure on the target persists", async () => {
      // The wait runs from before the MCO hands out the target, as after `pulumi up` creates the
      // MachineConfig: the failure arises during the rollout, so it is the target's.
      const failure = rollout({
        pool: "worker",
        machineConfigs: ["99-worker-degraded"],
        ...persisting(/degraded: node/),
      }).then(
        () => assert.fail("the rollout succeeded"),
        (e: unknown) => e,
      );
      const node = await handedTarget("99-worker-degraded");
      sim.faults.inject("degradeNode", {
        node,
        reason: "failed to drain node: PodDisruptionBudget blocks eviction",
      });
      // From the node's annotations, or its MachineConfigNode if the wait saw it first.
      const degraded = new RegExp(
        `pool worker is degraded rolling out rendered-worker-\\w+: node ${node} \\((Node)?Degraded\\): failed to drain node: PodDisruptionBudget blocks eviction \\(persisted 5m0s`,
      );
      await expectWaitError(
        failure.then((e) => Promise.reject(e)),
        "failed",
        degraded,
      );
      // The next wait (a retried `pulumi up`) finds the pool degraded at its first look. The daemon
      // repeats the failure word for word without draining for the target (as it fails daemon.go
      // syncNode's preflight check on each retry, handleErr writing the same state and reason): the
      // failure is the target's, reported once it persists, not at the deadline.
      await expectWaitError(
        rollout({ pool: "worker", machineConfigs: ["99-worker-degraded"], ...persisting(/degraded: node/) }),
        "failed",
        degraded,
      );
      sim.faults.inject("clearClusterFaults");
      sim.store.delete(keyOf(K.machineConfig, "99-worker-degraded"));
      await rollout({ pool: "worker", deletedMachineConfigs: ["99-worker-degraded"] });
    });

    it("does not fail on a failure the daemon gets past: the node recovers and the rollout completes", async () => {
      const seen: string[] = [];
      const recovered = rollout({
        pool: "worker",
        machineConfigs: ["99-worker-retried"],
        progressIntervalMs: 0,
        onProgress: (e) => {
          if (
            seen.length === 0 &&
            /degraded: node .* \(for 0m0s; retried, final after 5m0s\)/.test(e.message)
          ) {
            seen.push(e.message);
            // The PodDisruptionBudget allows the eviction at the daemon's next try.
            setImmediate(() => sim.faults.inject("clearClusterFaults"));
          }
        },
      });
      const node = await handedTarget("99-worker-retried");
      sim.faults.inject("degradeNode", {
        node,
        reason: "failed to drain node: PodDisruptionBudget blocks eviction",
      });
      const { result } = await recovered;
      assert.equal(seen.length, 1, "the wait saw the node degraded on the target");
      assert.deepEqual(currentConfigs(sim), [result.renderedConfig]);
      sim.store.delete(keyOf(K.machineConfig, "99-worker-retried"));
      await rollout({ pool: "worker", deletedMachineConfigs: ["99-worker-retried"] });
    });

    it("does not fail a node that carries the failure of an older config while its daemon applies the target, however long that takes", async () => {
      // update.go update: a Degraded node is not set Working, and daemon.go writes its state and
      // reason again only when the attempt on the new target fails or is done (handleErr,
      // updateConfigAndState): until then the old failure is not the target's.
      sim.store.create(machineConfig("99-worker-broken", { "/usr/bin/broken": "#!/bin/sh" }));
      const broken = await storeUntil(sim, "a node degraded on the broken config", () =>
        workerNodes(sim).find(
          (n) => n.metadata.annotations?.["machineconfiguration.openshift.io/state"] === "Degraded",
        ),
      );
      // Its OS update on the fixed config will take long (a slow image pull): nothing changes meanwhile.
      sim.faults.inject("holdOsUpdate", { node: broken.metadata.name });
      const clock = fakeClock();
      const carried: string[] = [];
      let jumped = false;
      const fixed = waitForPoolRollout({
        kubeconfig,
        pool: "worker",
        machineConfigs: ["99-worker-fixed"],
        deletedMachineConfigs: ["99-worker-broken"],
        clock,
        timeoutMs: 6 * PERSISTENCE_MS,
        progressIntervalMs: 0,
        onProgress: (e) => {
          if (/degraded on an older config while the daemon applies the target/.test(e.message))
            carried.push(e.message);
          if (jumped || !/degraded/.test(e.message)) return;
          jumped = true;
          // Ten minutes pass, then the image is pulled: the daemon reboots the node, still Degraded.
          setImmediate(() => {
            clock.advance(2 * PERSISTENCE_MS);
            sim.faults.inject("clearClusterFaults");
          });
        },
      });
      sim.store.delete(keyOf(K.machineConfig, "99-worker-broken"));
      sim.store.create(machineConfig("99-worker-fixed", { "/etc/fixed.conf": "x" }));
      const { result } = await fixed;
      assert.ok(
        carried.length >= 2,
        "the wait saw the node carry its old failure on the target, before and after ten minutes",
      );
      assert.match(carried[1], new RegExp(`node ${broken.metadata.name.replaceAll(".", "\\.")} \\(`));
      assert.deepEqual(currentConfigs(sim), [result.renderedConfig]);
      sim.store.delete(keyOf(K.machineConfig, "99-worker-fixed"));
      await rollout({ pool: "worker", deletedMachineConfigs: ["99-worker-fixed"] });
    });

    // machine-config-operator pkg/controller/drain/drain_controller.go drainNode writes a failed attempt
    // on the MachineConfigNode's Drained condition with the kubectl drain helper's error
    // (k8s.io/kubectl/pkg/drain evictPods: `error when evicting pods/"<pod>" -n "<namespace>": global
    // timeout reached: 1m30s`) and retries for ever; kubernetes pkg/registry/core/pod/storage/eviction.go
    // checkAndDecrement refuses while the budget allows no disruption. The wait names both long before
    // the MCO's own DrainFailed after an hour, and its deadline says them.
    it("names the pod and the PodDisruptionBudget that hold a node's drain, in its progress and at its deadline", async () => {
      holdDrainWithBudget(sim.store);
      const pod = await storeUntil(sim, "the guarded pod running", () =>
        sim.store
          .list("v1", "Pod", { namespace: "shop" })
          .find((p) => (p.status as { phase?: string } | undefined)?.phase === "Running"),
      );
      const node = (pod.spec as { nodeName: string }).nodeName;
      const clock = fakeClock();
      const seen: string[] = [];
      const blocker = `${node} draining (cannot evict pod shop/${pod.metadata.name}: PodDisruptionBudget shop/web needs 1 healthy pod and has 1)`;
      const held = waitForPoolRollout({
        kubeconfig,
        pool: "worker",
        machineConfigs: ["99-worker-held"],
        clock,
        timeoutMs: 30 * 60_000,
        progressIntervalMs: 0,
        onProgress: (e) => {
          if (seen.length > 0 || !e.message.includes(blocker)) return;
          seen.push(e.message);
          setImmediate(() => clock.advance(30 * 60_000));
        },
      });
      sim.store.create(machineConfig("99-worker-held", { "/etc/held.conf": "x" }));
      await expectWaitError(held, "timeout", new RegExp(`waiting for pool worker: .*${escape(blocker)}`));
      assert.equal(seen.length, 1, "the progress line named the pod and its budget");
      sim.store.delete(keyOf(K.podDisruptionBudget, "web", "shop"));
      await rollout({ pool: "worker", machineConfigs: ["99-worker-held"] });
      sim.store.mutate(
        keyOf(K.deployment, "web", "shop"),
        (d) => ((d.spec as { replicas: number }).replicas = 0),
      );
      sim.store.delete(keyOf(K.machineConfig, "99-worker-held"));
      await rollout({ pool: "worker", deletedMachineConfigs: ["99-worker-held"] });
    });

    for (const [kind, errorName, plural] of [
      ["KubeletConfig", "KubeletConfig", "kubeletConfigs"],
      ["ContainerRuntimeConfig", "containerRuntimeConfig", "containerRuntimeConfigs"],
    ] as const) {
      it(`fails as soon as the MCO reports that a ${kind}'s pool does not exist`, async () => {
        // kubelet_config_controller.go syncKubeletConfig / container_runtime_config_controller.go
        // syncContainerRuntimeConfig: "does not match any MachineConfigPools" through syncStatusOnly.
        sim.store.create({
          apiVersion: "machineconfiguration.openshift.io/v1",
          kind,
          metadata: { name: "misspelled" },
          spec: {
            machineConfigPoolSelector: {
              matchLabels: { "pools.operator.machineconfiguration.openshift.io/infar": "" },
            },
            ...(kind === "KubeletConfig"
              ? { kubeletConfig: { maxPods: 300 } }
              : { containerRuntimeConfig: { pidsLimit: 4096 } }),
          },
        });
        await expectWaitError(
          rollout({ pool: "infar", [plural]: ["misspelled"] }),
          "failed",
          new RegExp(
            `^pool infar: ${kind} misspelled failed: Error: ${errorName} misspelled does not match any MachineConfigPools$`,
          ),
        );
        sim.store.delete(
          keyOf(kind === "KubeletConfig" ? K.kubeletConfig : K.containerRuntimeConfig, "misspelled"),
        );
      });
    }

    it("falls back to the node annotations on a cluster that does not serve MachineConfigNodes, asking once", async () => {
      // An OpenShift before MachineConfigNodes: their paths answer 404.
      const old = await startTestSimulator({ unserved: ["machineconfignodes"] });
      try {
        const sent: string[] = [];
        const client = createApiClient(old.kubeconfig, {
          onRequest: (_method, path) => sent.push(describeRequest(path)),
        });
        const progress: ProgressEvent[] = [];
        old.store.create(machineConfig("99-worker-old-cluster", { "/etc/old.conf": "x" }));
        const outcome = await waitForPoolRollout({
          client,
          pool: "worker",
          machineConfigs: ["99-worker-old-cluster"],
          timeoutMs: DEADLINE_MS,
          progressIntervalMs: 0,
          onProgress: (e) => progress.push(e),
        });
        assert.deepEqual(currentConfigs(old), [outcome.result.renderedConfig]);
        assert.equal(outcome.result.learnedTimings, undefined);
        assert.ok(
          progress.some((e) => /^pool worker: [0-2]\/3 updated -> rendered-worker-\w+$/.test(e.message)),
        );
        assert.ok(progress.every((e) => !e.message.includes("; ip-")));
        // The pool's list and watch, the MachineConfig's read, the nodes' list and watch (whose
        // MachineConfigNodes are asked for by name) and the one list of one node's that answered 404:
        // neither retried nor watched, nor asked for the other nodes.
        assert.deepEqual(
          sent.filter((r) => r.endsWith(" machineconfignodes")),
          ["list machineconfignodes"],
        );
        assert.ok(outcome.requests <= 6, `${outcome.requests} requests: ${sent.join("; ")}`);
      } finally {
        await old.stop();
      }
    });

    it("fails naming the node, its MachineConfigNode phase and the condition's message", async () => {
      sim.store.create(machineConfig("99-worker-usr", { "/usr/bin/tool": "#!/bin/sh" }));
      // The daemon retries the writes (daemon.go handleErr), failing alike each time. Time jumps once the
      // node's MachineConfigNode says it failed: its watch may deliver after the node's annotations do.
      await expectWaitError(
        rollout({
          pool: "worker",
          machineConfigs: ["99-worker-usr"],
          ...persisting(/degraded: node \S+ \(UpdateExecuted\)/),
        }),
        "failed",
        /pool worker is degraded rolling out rendered-worker-\w+: node ip-\S+ \(UpdateExecuted\): Error updating the Files on disk as a part of the in progress phase: failed to create directory "\/usr\/bin": mkdir \/usr\/bin: read-only file system \(persisted 5m0s, past the 5m0s allowed for retries\)$/,
      );
      sim.store.delete(keyOf(K.machineConfig, "99-worker-usr"));
      await rollout({ pool: "worker", deletedMachineConfigs: ["99-worker-usr"] });
    });

    it("says a paused pool will not roll out instead of hanging", async () => {
      sim.store.mutate(keyOf(K.pool, "worker"), (p) => ((p.spec as { paused: boolean }).paused = true));
      sim.store.create(machineConfig("99-worker-paused", { "/etc/paused.conf": "x" }));
      await expectWaitError(
        rollout({ pool: "worker", machineConfigs: ["99-worker-paused"] }),
        "failed",
        /pool worker is paused/,
      );
      sim.store.mutate(keyOf(K.pool, "worker"), (p) => ((p.spec as { paused: boolean }).paused = false));
      sim.store.delete(keyOf(K.machineConfig, "99-worker-paused"));
      await rollout({ pool: "worker", deletedMachineConfigs: ["99-worker-paused"] });
    });

    it("rolls out a MachineConfig created after the wait found it missing", async () => {
      const before = poolTarget(sim);
      const { result, requests } = await createdLate(
        kubeconfig,
        "machineconfigs",
        (progress) => rollout({ pool: "worker", machineConfigs: ["99-worker-late"], ...progress }),
        /MachineConfig 99-worker-late does not exist yet/,
        () => sim.store.create(machineConfig("99-worker-late", { "/etc/late.conf": "late" })),
      );
      assert.notEqual(result.renderedConfig, before);
      assert.equal(renderedFiles(sim, result.renderedConfig)["/etc/late.conf"], "late");
      assert.deepEqual(currentConfigs(sim), [result.renderedConfig]);
      // The pool's list and watch, the read that found nothing, then a list and a watch of that name,
      // and the nodes' and each node's MachineConfigNode's list and watch.
      assert.ok(requests <= 7 + 2 * workerNodes(sim).length, `${requests} requests`);
      sim.store.delete(keyOf(K.machineConfig, "99-worker-late"));
      await rollout({ pool: "worker", deletedMachineConfigs: ["99-worker-late"] });
    });
  });

  describe("fault matrix: each rollout converges despite the fault", () => {
    let n = 0;
    /**
     * Creates a MachineConfig, starts the wait, and injects the fault once the first node has updated;
     * records every request the waiter sent and where the fault came in that sequence.
     */
    async function rolloutWith(inject: () => void, clock?: FakeClock) {
      const name = `99-worker-fault-${++n}`;
      const sent: string[] = [];
      let faultAt: number | undefined;
      const client = createApiClient(kubeconfig, {
        onRequest: (_method, path) => sent.push(describeRequest(path)),
        clock,
      });
      sim.store.create(machineConfig(name, { "/etc/fault.conf": name }));
      const outcome = await waitForPoolRollout({
        client,
        pool: "worker",
        machineConfigs: [name],
        timeoutMs: DEADLINE_MS,
        clock,
        progressIntervalMs: 0,
        onProgress: (e) => {
          if (faultAt === undefined && (e.done ?? 0) >= 1) {
            faultAt = sent.length;
            inject();
          }
        },
      });
      assert.ok(faultAt !== undefined, "the fault was injected during the rollout");
      assert.deepEqual(currentConfigs(sim), [outcome.result.renderedConfig]);
      assert.equal(outcome.result.renderedConfig, poolTarget(sim));
      return { ...outcome, sent, afterFault: sent.slice(faultAt) };
    }

    it("survives the watches dropped mid-rollout, reconnecting each with one request", async () => {
      const outcome = await rolloutWith(() => sim.faults.dropWatches());
      // The MachineConfig's read, then each source (the pool, its nodes, each node's MachineConfigNode)
      // listed and watched once, and each watch reconnected once.
      const sources = 2 + workerNodes(sim).length;
      assert.ok(
        outcome.requests <= 1 + 3 * sources,
        `${outcome.requests} requests: ${outcome.sent.join("; ")}`,
      );
    });

    it("re-lists after 410 Gone on resume", async () => {
      // Once one node runs the new render, the next holds the rollout (a slow OS update) while every
      // watch is dropped and each resume gets 410 (a 410 storm): the rollout goes on only once the pool's
      // source listed again, so its end comes after the 410s, never in events already on their way.
      // client-go's `Reflector.Run` lists again after a watch ends with an expired resourceVersion.
      const name = `99-worker-fault-${++n}`;
      const sent: string[] = [];
      const client = createApiClient(kubeconfig, {
        onRequest: (_method, path) => sent.push(describeRequest(path)),
      });
      const before = poolTarget(sim);
      sim.store.create(machineConfig(name, { "/etc/fault.conf": name }));
      const outcome = waitForPoolRollout({
        client,
        pool: "worker",
        machineConfigs: [name],
        timeoutMs: DEADLINE_MS,
      });
      const behind = await storeUntil(sim, "one node on the new render, another not", () => {
        const target = poolTarget(sim);
        const nodes = workerNodes(sim);
        return (
          target !== before &&
          nodes.some((n) => n.metadata.annotations?.[CURRENT] === target) &&
          nodes.find((n) => n.metadata.annotations?.[CURRENT] !== target)
        );
      });
      sim.faults.inject("holdOsUpdate", { node: behind.metadata.name });
      const faultAt = sent.length;
      sim.faults.startGoneStorm();
      sim.faults.dropWatches();
      while (!sent.slice(faultAt).includes("list machineconfigpools"))
        await new Promise((r) => setTimeout(r, 20));
      sim.faults.reset();
      sim.faults.inject("clearClusterFaults");
      const { result } = await outcome;
      assert.deepEqual(currentConfigs(sim), [result.renderedConfig]);
      const afterFault = sent.slice(faultAt);
      const relisted = afterFault.some((request, i) => {
        if (!request.startsWith("list ")) return false;
        const resource = request.slice("list ".length);
        const earlier = sent
          .slice(0, faultAt + i)
          .filter((r) => r.endsWith(` ${resource}`) && !r.startsWith("get "));
        return earlier[earlier.length - 1] === `watch ${resource}`;
      });
      assert.ok(relisted, `no watch was followed by a list: ${sent.join("; ")}`);
    });

    for (const code of [429, 500, 503] as const) {
      it(`retries through a burst of ${code} on the reconnect`, async () => {
        // The waiter's pauses take no time; the faults still come from the API server.
        const clock = fakeClock();
        const { afterFault } = await rolloutWith(() => {
          sim.faults.failNextRequests(2, code, 1);
          sim.faults.dropWatches();
        }, clock);
        // Whenever the waiter needed the API after the fault, the burst was spent on it, and the
        // waiter paused at least the second the server asked for before each retry.
        if (afterFault.length > 0) {
          assert.equal(sim.faults.status().pendingErrors, 0);
          assert.ok(
            clock.slept.filter((ms) => ms >= 1000).length >= 2,
            `paused ${clock.slept.join(", ")} ms`,
          );
        }
      });
    }

    it("retries the first list through a burst of 429, honouring Retry-After", async () => {
      sim.faults.failNextRequests(2, 429, 1);
      const clock = fakeClock();
      const { requests } = await waitForPoolRollout({
        kubeconfig,
        pool: "worker",
        timeoutMs: DEADLINE_MS,
        clock,
      });
      assert.equal(sim.faults.status().pendingErrors, 0);
      // Two answered 429, the third listed a converged pool: nothing left to watch.
      assert.equal(requests, 3);
      assert.deepEqual(clock.slept, [1000, 1000]);
    });

    it("outlasts a 429 storm longer than a request's 10 tries again, as a reflector tries its list again", async () => {
      // Each request is sent 11 times (retry.ts, MAX_RETRIES), then the wait tries the list again
      // after its own pause: 25 answers of 429 are two requests that gave up and a third that passes.
      sim.faults.failNextRequests(25, 429, 1);
      const clock = fakeClock();
      const { requests } = await waitForPoolRollout({
        kubeconfig,
        pool: "worker",
        timeoutMs: DEADLINE_MS * 10,
        clock,
      });
      assert.equal(sim.faults.status().pendingErrors, 0);
      assert.equal(requests, 26);
      assert.deepEqual(clock.slept, Array<number>(25).fill(1000));
    });

    it("under a storm that outlasts the wait, times out naming the request that gave up, its status and tries", async () => {
      sim.faults.failNextRequests(1000, 429, 1);
      try {
        await assert.rejects(
          waitForPoolRollout({ kubeconfig, pool: "worker", timeoutMs: 30_000, clock: fakeClock() }),
          (e: Error) =>
            e.message.endsWith(
              "(last API error: HTTP 429 TooManyRequests: injected fault: TooManyRequests " +
                "(GET /apis/machineconfiguration.openshift.io/v1/machineconfigpools?fieldSelector=metadata.name%3Dworker: gave up after 11 tries))",
            ),
        );
      } finally {
        sim.faults.reset();
      }
    });

    it("reconnects after the API refused connections for 2 s", async () => {
      let refused: Promise<void> | undefined;
      await rolloutWith(() => {
        refused = sim.faults.refuseConnections(2);
      });
      await refused;
    });

    it("converges under added latency", async () => {
      await rolloutWith(() => sim.faults.setLatency(150));
    });
  });

  describe("MachineSets", () => {
    const infra = { "node-role.kubernetes.io/infra": "" };

    it("waits for a MachineSet to scale up and down, with labelled Ready nodes", async () => {
      createMachineSet(sim, "infra-a", {
        replicas: 1,
        nodeLabels: { ...infra, "node-role.kubernetes.io/worker": "" },
      });
      const one = await waitForMachineSetsReady({
        kubeconfig,
        machineSets: ["infra-a"],
        nodeLabels: infra,
        timeoutMs: DEADLINE_MS,
      });
      assert.equal(one.result.nodes.length, 1);
      const scale = (replicas: number) =>
        sim.store.mutate(
          keyOf(K.machineSet, "infra-a", NS),
          (m) => ((m.spec as { replicas: number }).replicas = replicas),
        );
      scale(3);
      const three = await waitForMachineSetsReady({
        kubeconfig,
        machineSets: ["infra-a"],
        timeoutMs: DEADLINE_MS,
      });
      assert.equal(three.result.readyMachineCount, 3);
      for (const node of three.result.nodes) assert.ok(sim.store.get(keyOf(K.node, node)));
      scale(1);
      const down = await waitForMachineSetsReady({
        kubeconfig,
        machineSets: ["infra-a"],
        timeoutMs: DEADLINE_MS,
      });
      assert.equal(down.result.nodes.length, 1);
      const gone = three.result.nodes.filter((node) => !down.result.nodes.includes(node));
      assert.equal(gone.length, 2);
      for (const node of gone) assert.equal(sim.store.get(keyOf(K.node, node)), undefined);
    });

    it("asks only for its own MachineSets, each by name, though the namespace has others", async () => {
      for (const name of ["infra-b", "infra-c"])
        createMachineSet(sim, name, {
          replicas: 1,
          nodeLabels: { ...infra, "node-role.kubernetes.io/worker": "" },
        });
      const asked: string[] = [];
      const client = createApiClient(kubeconfig, {
        onRequest: (_method, path) => {
          const url = new URL(path, "https://api");
          if (url.pathname.endsWith("/machinesets"))
            asked.push(`${describeRequest(path)} ${url.searchParams.get("fieldSelector") ?? "(all)"}`);
        },
      });
      const outcome = await waitForMachineSetsReady({
        client,
        machineSets: ["infra-b", "infra-c"],
        timeoutMs: DEADLINE_MS,
      });
      assert.equal(outcome.result.nodes.length, 2);
      assert.deepEqual([...new Set(asked)].sort(), [
        "list machinesets metadata.name=infra-b",
        "list machinesets metadata.name=infra-c",
        "watch machinesets metadata.name=infra-b",
        "watch machinesets metadata.name=infra-c",
      ]);
      for (const name of ["infra-b", "infra-c"]) sim.store.delete(keyOf(K.machineSet, name, NS));
      await waitForMachineSetsDeleted({
        kubeconfig,
        machineSets: ["infra-b", "infra-c"],
        timeoutMs: DEADLINE_MS,
      });
    });

    it("waits for a deleted MachineSet's machines and nodes to be gone", async () => {
      const machines = sim.store
        .list(K.machine.apiVersion, K.machine.kind, { namespace: NS })
        .filter((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === "infra-a");
      const nodes = machines.map((m) => (m.status as { nodeRef: { name: string } }).nodeRef.name);
      sim.store.delete(keyOf(K.machineSet, "infra-a", NS));
      await waitForMachineSetsDeleted({ kubeconfig, machineSets: ["infra-a"], timeoutMs: DEADLINE_MS });
      for (const m of machines) assert.equal(sim.store.get(keyOf(K.machine, m.metadata.name, NS)), undefined);
      for (const node of nodes) assert.equal(sim.store.get(keyOf(K.node, node)), undefined);
    });

    it("replaces an autoscaled MachineSet's machines without writing its replicas, while the autoscaler scales it and a health check remediates", async () => {
      // The cluster autoscaler owns an autoscaled MachineSet's replicas, so the replacement deletes old
      // machines (maxUnavailable at a time) and the MachineSet creates each replacement from its
      // template (machine-api-operator pkg/controller/machineset/controller.go, shouldExcludeMachine
      // and syncReplicas); what the autoscaler adds and what the health check replaces meanwhile also
      // comes from the new template.
      const name = "auto-a";
      const set = () => sim.store.get(keyOf(K.machineSet, name, NS))!;
      const machines = () =>
        sim.store
          .list(K.machine.apiVersion, K.machine.kind, { namespace: NS })
          .filter((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === name);
      const typeOf = (m: StoreObject) => (m.spec as any).providerSpec.value.instanceType as string;
      createMachineSet(sim, name, { replicas: 2, providerSpec: { instanceType: "m6i.xlarge" } });
      await waitForMachineSetsReady({ kubeconfig, machineSets: [name], timeoutMs: DEADLINE_MS });
      const created = [
        { ...CLUSTER_AUTOSCALER, metadata: { name: "default" }, spec: {} },
        {
          ...MACHINE_AUTOSCALER,
          metadata: { name, namespace: NS },
          spec: {
            minReplicas: 2,
            maxReplicas: 3,
            scaleTargetRef: { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet", name },
          },
        },
        {
          ...MACHINE_HEALTH_CHECK,
          metadata: { name, namespace: NS },
          spec: {
            selector: { matchLabels: { "machine.openshift.io/cluster-api-machineset": name } },
            unhealthyConditions: [{ type: "Ready", status: "Unknown", timeout: "300s" }],
            maxUnhealthy: 1,
            nodeStartupTimeout: "10m",
          },
        },
      ].map((o) => sim.store.create(o as never));
      await storeUntil(
        sim,
        "the autoscaler's bounds",
        () => set().metadata.annotations?.[AUTOSCALER_ANNOTATIONS.maxSize],
      );
      const [victim, other] = machines();
      sim.store.mutate(keyOf(K.machineSet, name, NS), (m) => {
        (m.spec as any).template.spec.providerSpec.value.instanceType = "m6i.2xlarge";
      });

      const client = createApiClient(kubeconfig);
      const patched: string[] = [];
      const recording: ApiClient = Object.assign(Object.create(client) as ApiClient, {
        mergePatch: (...args: Parameters<ApiClient["mergePatch"]>) => {
          patched.push(`${args[0].kind} ${args[1]}`);
          return client.mergePatch(...args);
        },
      });
      const replaced = waitForMachineSetsReady({
        client: recording,
        machineSets: [name],
        replacement: { maxSurge: 0, maxUnavailable: 1 },
        timeoutMs: DEADLINE_MS,
      });
      // Pods that need one more node, and a kubelet that stops on an old machine.
      sim.faults.inject("pendingPods", { nodes: 1 });
      sim.faults.inject("stopKubelet", { node: (victim.status as any).nodeRef.name });
      const outcome = await replaced;

      const live = machines().filter((m) => !m.metadata.deletionTimestamp);
      assert.equal((set().spec as { replicas: number }).replicas, 3, "the autoscaler's count");
      assert.deepEqual(live.map(typeOf), ["m6i.2xlarge", "m6i.2xlarge", "m6i.2xlarge"]);
      assert.ok(!live.some((m) => [victim.metadata.name, other.metadata.name].includes(m.metadata.name)));
      assert.equal(outcome.result.readyMachineCount, 3);
      // Marks on machines only: the replicas stayed the autoscaler's.
      assert.ok(patched.length > 0 && patched.every((p) => p.startsWith("Machine ")), patched.join(", "));
      for (const o of created) sim.store.delete(keyOf(o as never, o.metadata.name, o.metadata.namespace));
      sim.store.delete(keyOf(K.machineSet, name, NS));
      await waitForMachineSetsDeleted({ kubeconfig, machineSets: [name], timeoutMs: DEADLINE_MS });
    });

    // The MachineSet controller makes as many machines as spec.replicas says, whoever wrote it
    // (machine-api-operator pkg/controller/machineset/controller.go, syncReplicas), and `oc scale` writes
    // it through the scale subresource: the replacement must not take a person's count back unseen.
    // The surged machine's boot is held, so the replacement is still running when the hand scales
    // (without the hold a fast simulator finishes it before kubectl starts).
    it("stops a replacement whose MachineSet is scaled by hand (oc scale) and leaves the hand's count", async () => {
      const name = "hand-a";
      const replicas = () =>
        (sim.store.get(keyOf(K.machineSet, name, NS))!.spec as { replicas: number }).replicas;
      createMachineSet(sim, name, { replicas: 2, providerSpec: { instanceType: "m6i.xlarge" } });
      await waitForMachineSetsReady({ kubeconfig, machineSets: [name], timeoutMs: DEADLINE_MS });
      sim.faults.inject("holdBoot", { machineSet: name });
      sim.store.mutate(keyOf(K.machineSet, name, NS), (m) => {
        (m.spec as any).template.spec.providerSpec.value.instanceType = "m6i.2xlarge";
      });
      const replaced = waitForMachineSetsReady({
        kubeconfig,
        machineSets: [name],
        replacement: { maxSurge: 1, maxUnavailable: 0, replicas: { [name]: 2 } },
        timeoutMs: DEADLINE_MS,
      });
      // Its failure comes while the test waits on the store: handled now, asserted below.
      replaced.catch(() => undefined);
      await storeUntil(sim, "the replacement's surge", () => replicas() === 3);
      const scaled = await kubectl(sim.kubeconfigPath, [
        "scale",
        "machineset",
        name,
        "-n",
        NS,
        "--replicas=5",
      ]);
      assert.equal(scaled.code, 0, scaled.stderr);
      await expectWaitError(
        replaced,
        "failed",
        new RegExp(`^MachineSet ${name} was scaled to 5 replicas by someone else`),
      );
      assert.equal(replicas(), 5, "the hand's count stays");
      sim.store.delete(keyOf(K.machineSet, name, NS));
      await waitForMachineSetsDeleted({ kubeconfig, machineSets: [name], timeoutMs: DEADLINE_MS });
    });

    // The machine-api copies a template only into the Machines it creates (machine-api-operator
    // machineset/controller.go createMachine); nodelink copies a Machine's labels and adds its taints by
    // key and effect, removing nothing (nodelink_controller.go ReconcileNodeLink.Reconcile, addTaintsToNode).
    it("brings a label and a taint to running nodes and takes them off again, never someone else's; MachineSetReady waits for neither", async () => {
      const roles = { ...infra, "node-role.kubernetes.io/worker": "" };
      createMachineSet(sim, "labelled", { replicas: 2, nodeLabels: roles });
      await waitForMachineSetsReady({ kubeconfig, machineSets: ["labelled"], timeoutMs: DEADLINE_MS });
      const machines = () =>
        sim.store
          .list(K.machine.apiVersion, K.machine.kind, { namespace: NS })
          .filter((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === "labelled");
      const nodes = () =>
        machines().map((m) =>
          sim.store.get(keyOf(K.node, (m.status as { nodeRef: { name: string } }).nodeRef.name))!,
        );
      const [first] = nodes();
      // Someone else's label and taint, by hand.
      for (const args of [
        ["label", "node", first.metadata.name, "example.com/owner=ops"],
        ["taint", "node", first.metadata.name, "example.com/ops=true:NoSchedule"],
      ]) {
        const run = await kubectl(sim.kubeconfigPath, args);
        assert.equal(run.code, 0, run.stderr);
      }
      const dedicated = { key: "example.com/dedicated", value: "logging", effect: "NoSchedule" as const };
      // The stack's template change: nothing reaches the running machines by itself, and the
      // MachineSets wait does not wait for it.
      sim.store.mutate(keyOf(K.machineSet, "labelled", NS), (ms) => {
        const template = (ms.spec as { template: { spec: Record<string, unknown> } }).template;
        template.spec.metadata = { labels: { ...roles, team: "logging" } };
        template.spec.taints = [dedicated];
      });
      const ready = await waitForMachineSetsReady({
        kubeconfig,
        machineSets: ["labelled"],
        timeoutMs: DEADLINE_MS,
      });
      assert.equal(ready.result.nodes.length, 2);
      assert.ok(nodes().every((n) => n.metadata.labels?.team === undefined));

      const added = await waitForNodeMetadata({
        kubeconfig,
        machineSets: ["labelled"],
        labels: { ...roles, team: "logging" },
        taints: [dedicated],
        timeoutMs: DEADLINE_MS,
      });
      assert.deepEqual(
        added.result.nodes,
        nodes()
          .map((n) => n.metadata.name)
          .sort(),
      );
      for (const n of nodes()) {
        assert.equal(n.metadata.labels?.team, "logging");
        assert.ok(
          (n.spec as { taints: unknown[] }).taints.some(
            (t) => JSON.stringify(t) === JSON.stringify(dedicated),
          ),
        );
      }

      const removed = await waitForNodeMetadata({
        kubeconfig,
        machineSets: ["labelled"],
        labels: roles,
        timeoutMs: DEADLINE_MS,
      });
      assert.equal(removed.result.nodes.length, 2);
      for (const n of nodes()) {
        assert.equal(n.metadata.labels?.team, undefined);
        assert.ok(
          !((n.spec as { taints?: Array<{ key: string }> }).taints ?? []).some(
            (t) => t.key === dedicated.key,
          ),
        );
      }
      for (const m of machines()) {
        assert.deepEqual((m.spec as { metadata: { labels: object } }).metadata.labels, roles);
        assert.equal((m.spec as { taints?: unknown }).taints, undefined);
      }
      const kept = sim.store.get(keyOf(K.node, first.metadata.name))!;
      assert.equal(kept.metadata.labels?.["example.com/owner"], "ops");
      assert.deepEqual(
        (kept.spec as { taints: Array<{ key: string }> }).taints.map((t) => t.key),
        ["example.com/ops"],
      );
      sim.store.delete(keyOf(K.machineSet, "labelled", NS));
      await waitForMachineSetsDeleted({ kubeconfig, machineSets: ["labelled"], timeoutMs: DEADLINE_MS });
    });

    it("fails naming a failed Machine and its error", async () => {
      createMachineSet(sim, "noimage", { providerSpec: { ami: {} } });
      await expectWaitError(
        waitForMachineSetsReady({ kubeconfig, machineSets: ["noimage"], timeoutMs: DEADLINE_MS }),
        "failed",
        /MachineSet noimage: Machine noimage-\w+ failed \(InvalidConfiguration\): .*AMI/,
      );
      sim.store.delete(keyOf(K.machineSet, "noimage", NS));
      await waitForMachineSetsDeleted({ kubeconfig, machineSets: ["noimage"], timeoutMs: DEADLINE_MS });
    });
  });

  describe("operators and Windows nodes", () => {
    const pinned = "windows-machine-config-operator.v10.16.1";

    it("fails fast on a missing cloud-private-key", async () => {
      await expectWaitError(
        waitForWindowsNodes({ kubeconfig, machineSets: ["winworker"], timeoutMs: DEADLINE_MS }),
        "failed",
        /secret cloud-private-key is missing in namespace openshift-windows-machine-config-operator/,
      );
    });

    it("under Manual approval approves only the Subscription's InstallPlan for the pinned CSV", async () => {
      subscribeToWmco(sim, { approval: "Manual", startingCSV: pinned });
      // A plan for the same CSV that another Subscription owns: never ours to approve.
      sim.store.create({
        apiVersion: "operators.coreos.com/v1alpha1",
        kind: "InstallPlan",
        metadata: {
          name: "install-decoy",
          namespace: WMCO_NS,
          ownerReferences: [
            {
              apiVersion: "operators.coreos.com/v1alpha1",
              kind: "Subscription",
              name: "someone-else",
              uid: "decoy",
            },
          ],
        },
        spec: { approval: "Manual", approved: false, clusterServiceVersionNames: [pinned] },
      });
      const { result } = await waitForOperatorInstall({
        kubeconfig,
        namespace: WMCO_NS,
        subscription: "windows-machine-config-operator",
        startingCSV: pinned,
        timeoutMs: DEADLINE_MS,
      });
      assert.equal(result.installedCSV, pinned);
      assert.equal(result.phase, "Succeeded");
      const plans = () =>
        sim.store.list(K.installPlan.apiVersion, K.installPlan.kind, { namespace: WMCO_NS });
      const approved = plans().filter((p) => (p.spec as { approved: boolean }).approved);
      assert.deepEqual(
        approved.map((p) => p.metadata.name),
        [result.approvedInstallPlan],
      );
      assert.deepEqual(
        (approved[0].spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames,
        [pinned],
      );
      // OLM then offers the upgrade to the channel head: it stays unapproved.
      const upgrade = await storeUntil(sim, "the upgrade InstallPlan", () =>
        plans().find((p) =>
          (p.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames.includes(
            "windows-machine-config-operator.v10.17.0",
          ),
        ),
      );
      assert.equal((upgrade.spec as { approved: boolean }).approved, false);
      assert.equal(
        (sim.store.get(keyOf(K.installPlan, "install-decoy", WMCO_NS))!.spec as { approved: boolean })
          .approved,
        false,
      );
    });

    it("fails on ResolutionFailed with OLM's message once it persists", async () => {
      subscribeWithoutOperatorGroup(sim);
      await expectWaitError(
        waitForOperatorInstall({
          kubeconfig,
          namespace: "no-group",
          subscription: "wmco",
          ...persisting(/ResolutionFailed/),
        }),
        "failed",
        /operator no-group\/wmco: ResolutionFailed: expected 1 OperatorGroup in the namespace, found 0 \(persisted 5m0s/,
      );
    });

    it("waits until Windows machines are configured Windows nodes", async () => {
      createPrivateKeySecret(sim);
      createWindowsMachineSet(sim, "winworker", 2);
      const { result } = await waitForWindowsNodes({
        kubeconfig,
        machineSets: ["winworker"],
        timeoutMs: DEADLINE_MS,
      });
      assert.equal(result.configuredCount, 2);
      for (const name of result.nodes) {
        const node = sim.store.get(keyOf(K.node, name))!;
        assert.equal(node.metadata.labels?.["kubernetes.io/os"], "windows");
        assert.equal(
          node.metadata.annotations?.["windowsmachineconfig.openshift.io/version"],
          result.version,
        );
      }

      // Among other Windows workers (1,000 nodes in all), the wait asks only for its Machines' nodes,
      // each by name: a Windows MachineSet's template gives its nodes the worker label only (nodelink
      // copies the template's labels, machine-api-operator nodelink_controller.go Reconcile), which
      // every worker carries.
      const others = 1000 - sim.store.list("v1", "Node").length;
      for (let i = 0; i < others; i++) {
        sim.store.create({
          apiVersion: "v1",
          kind: "Node",
          metadata: {
            name: `other-windows-${i}`,
            labels: { "kubernetes.io/os": "windows", "node-role.kubernetes.io/worker": "" },
          },
          status: { conditions: [{ type: "Ready", status: "True" }] },
        });
      }
      try {
        const client = recordingClient(kubeconfig);
        await waitForWindowsNodes({ client, machineSets: ["winworker"], timeoutMs: DEADLINE_MS });
        assert.deepEqual(
          [
            ...new Set(
              client.lists.filter((l) => l.kind === "nodes").map((l) => `nodes ${l.objects}: ${l.query}`),
            ),
          ].sort(),
          result.nodes.map((node) => `nodes 1: metadata.name=${node}`),
        );
      } finally {
        for (let i = 0; i < others; i++) sim.store.delete(keyOf(K.node, `other-windows-${i}`));
      }
    });

    it("fails naming the reason when the installed CSV fails and OLM's re-checks keep it Failed", async () => {
      sim.faults.inject("failCsv", {
        namespace: WMCO_NS,
        name: pinned,
        reason: "InstallComponentFailed",
        message: "install strategy failed: deployment windows-machine-config-operator not available",
      });
      await expectWaitError(
        waitForOperatorInstall({
          kubeconfig,
          namespace: WMCO_NS,
          subscription: "windows-machine-config-operator",
          startingCSV: pinned,
          ...persisting(/ClusterServiceVersion/),
        }),
        "failed",
        /ClusterServiceVersion windows-machine-config-operator.v10.16.1 failed \(InstallComponentFailed\): install strategy failed.* \(persisted 5m0s/,
      );
    });

    it("uninstalls an operator: the Subscription, then the CSVs it says it installed, and waits until all are gone", async () => {
      const subscription = keyOf(K.subscription, "windows-machine-config-operator", WMCO_NS);
      assert.ok(sim.store.get(subscription), "the Subscription of the earlier tests should exist");
      assert.ok(sim.store.get(keyOf(K.csv, pinned, WMCO_NS)), "so should the CSV it installed");
      // As after an upgrade OLM made: the CSV the Subscription names is not the one first installed.
      const upgraded = "windows-machine-config-operator.v10.17.0";
      sim.store.create({
        apiVersion: "operators.coreos.com/v1alpha1",
        kind: "ClusterServiceVersion",
        metadata: { name: upgraded, namespace: WMCO_NS },
        spec: { displayName: "Windows Machine Config Operator", version: "10.17.0" },
      });
      sim.store.mutate(subscription, (s) => {
        (s.status as Record<string, unknown>).installedCSV = upgraded;
        (s.status as Record<string, unknown>).currentCSV = upgraded;
      });
      const { result } = await uninstallOperator({
        kubeconfig,
        namespace: WMCO_NS,
        subscription: "windows-machine-config-operator",
        csv: pinned,
        timeoutMs: DEADLINE_MS,
      });
      assert.deepEqual(result.csvs, [pinned, upgraded]);
      assert.equal(sim.store.get(subscription), undefined);
      for (const csv of [pinned, upgraded])
        assert.equal(sim.store.get(keyOf(K.csv, csv, WMCO_NS)), undefined);
    });
  });
});

describe("waiting core: objects the MCO makes after the wait found them missing", function () {
  this.timeout(30_000);
  // Only the API server: the test plays the MCO, creating its objects in the order and at the moment
  // that leaves the wait looking for an object that does not exist yet.
  let server: TestServer;
  const MCFG = "machineconfiguration.openshift.io/v1";

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  /** A pool whose render names `sources` and which reports that render rolled out on its one node. */
  function renderedPool(name: string, rendered: string, sources: string[]): void {
    server.store.create({
      apiVersion: MCFG,
      kind: "MachineConfigPool",
      metadata: { name },
      spec: {
        configuration: { name: rendered, source: sources.map((s) => ({ kind: "MachineConfig", name: s })) },
      },
    });
    server.store.mutate(
      keyOf(K.pool, name),
      (p) => {
        p.status = {
          observedGeneration: p.metadata.generation,
          configuration: { name: rendered },
          conditions: [{ type: "Updated", status: "True" }],
          machineCount: 1,
          updatedMachineCount: 1,
          readyMachineCount: 1,
          degradedMachineCount: 0,
        };
      },
      { subresource: "status" },
    );
  }

  for (const [kind, base, ownerKey] of [
    ["KubeletConfig", "kubelet", "kubeletConfigs"],
    ["ContainerRuntimeConfig", "containerruntime", "containerRuntimeConfigs"],
  ] as const) {
    it(`rolls out once the MCO has generated the MachineConfig of a ${kind}`, async () => {
      const pool = `late-${base}`;
      const generated = machineConfig(`99-${pool}-generated-${base}`, { [`/etc/${base}.conf`]: "new" }, pool);
      server.store.create({ apiVersion: MCFG, kind, metadata: { name: "late" }, spec: {} });
      server.store.mutate(
        keyOf({ apiVersion: MCFG, kind }, "late"),
        (o) => {
          o.status = {
            observedGeneration: o.metadata.generation,
            conditions: [{ type: "Success", status: "True" }],
          };
        },
        { subresource: "status" },
      );
      server.store.create(machineConfig(`rendered-${pool}-1`, { [`/etc/${base}.conf`]: "new" }, pool));
      renderedPool(pool, `rendered-${pool}-1`, [generated.metadata.name]);
      const { result } = await createdLate(
        server.server.kubeconfig,
        "machineconfigs",
        (progress) =>
          waitForPoolRollout({
            pool,
            [ownerKey]: ["late"],
            timeoutMs: DEADLINE_MS,
            ...progress,
          }),
        new RegExp(`waiting for the MCO to generate ${generated.metadata.name} from ${kind} late`),
        () => server.store.create(generated),
      );
      assert.equal(result.renderedConfig, `rendered-${pool}-1`);
    });
  }

  it("rolls out once the rendered config the pool names exists", async () => {
    const pool = "late-render";
    const name = `99-${pool}-changed`;
    server.store.create(machineConfig(name, { "/etc/changed.conf": "one" }, pool));
    const changed = machineConfig(name, { "/etc/changed.conf": "two" }, pool);
    // Changed in place (generation 2): the render must carry its new content.
    server.store.mutate(keyOf(K.machineConfig, name), (o) => {
      o.spec = changed.spec;
    });
    renderedPool(pool, `rendered-${pool}-2`, [name]);
    const { result } = await createdLate(
      server.server.kubeconfig,
      "machineconfigs",
      (progress) =>
        waitForPoolRollout({
          pool,
          machineConfigs: [name],
          timeoutMs: DEADLINE_MS,
          ...progress,
        }),
      new RegExp(`waiting for rendered-${pool}-2 to exist`),
      () => server.store.create(machineConfig(`rendered-${pool}-2`, { "/etc/changed.conf": "two" }, pool)),
    );
    assert.equal(result.renderedConfig, `rendered-${pool}-2`);
  });
});

describe("waiting core: every other wait for an object that does not exist yet moves on once it appears", function () {
  this.timeout(30_000);
  // Guards for the states that come from watched sources (they progressed before the fix too).
  let sim: Simulator;
  const MCFG = "machineconfiguration.openshift.io/v1";
  const selectsWorker = {
    machineConfigPoolSelector: {
      matchLabels: { "pools.operator.machineconfiguration.openshift.io/worker": "" },
    },
  };

  before(async () => {
    sim = await startTestSimulator();
  });
  after(() => sim.stop());

  it("a MachineConfigPool", async () => {
    const { result } = await createdLate(
      sim.kubeconfig,
      "machineconfigpools",
      (progress) => waitForPoolRollout({ pool: "late", timeoutMs: DEADLINE_MS, ...progress }),
      /the MachineConfigPool does not exist yet/,
      () =>
        sim.store.create({
          apiVersion: MCFG,
          kind: "MachineConfigPool",
          metadata: { name: "late", labels: { "pools.operator.machineconfiguration.openshift.io/late": "" } },
          spec: {
            machineConfigSelector: {
              matchExpressions: [
                { key: "machineconfiguration.openshift.io/role", operator: "In", values: ["worker", "late"] },
              ],
            },
            nodeSelector: { matchLabels: { "node-role.kubernetes.io/late": "" } },
          },
        }),
    );
    assert.equal(result.renderedConfig, poolTarget(sim, "late"));
  });

  for (const [kind, ownerKey, spec] of [
    ["KubeletConfig", "kubeletConfigs", { kubeletConfig: { maxPods: 260 } }],
    ["ContainerRuntimeConfig", "containerRuntimeConfigs", { containerRuntimeConfig: { pidsLimit: 2048 } }],
  ] as const) {
    it(`a ${kind}`, async () => {
      const { result } = await createdLate(
        sim.kubeconfig,
        `${kind.toLowerCase()}s`,
        (progress) =>
          waitForPoolRollout({
            pool: "worker",
            [ownerKey]: ["late"],
            timeoutMs: DEADLINE_MS,
            ...progress,
          }),
        new RegExp(`${kind} late does not exist yet`),
        () =>
          sim.store.create({
            apiVersion: MCFG,
            kind,
            metadata: { name: "late" },
            spec: { ...selectsWorker, ...spec },
          }),
      );
      assert.equal(result.renderedConfig, poolTarget(sim));
      assert.deepEqual(currentConfigs(sim), [result.renderedConfig]);
    });
  }

  it("a MachineSet", async () => {
    const { result } = await createdLate(
      sim.kubeconfig,
      "machinesets",
      (progress) =>
        waitForMachineSetsReady({
          machineSets: ["late"],
          timeoutMs: DEADLINE_MS,
          ...progress,
        }),
      /MachineSet late does not exist yet/,
      () => createMachineSet(sim, "late", { replicas: 1 }),
    );
    assert.equal(result.readyMachineCount, 1);
  });

  it("a Subscription", async () => {
    const { result } = await createdLate(
      sim.kubeconfig,
      "subscriptions",
      (progress) =>
        waitForOperatorInstall({
          namespace: WMCO_NS,
          subscription: "windows-machine-config-operator",
          timeoutMs: DEADLINE_MS,
          ...progress,
        }),
      /the Subscription does not exist yet/,
      () => subscribeToWmco(sim),
    );
    assert.equal(result.phase, "Succeeded");
  });

  it("a Windows MachineSet", async () => {
    createPrivateKeySecret(sim);
    const { result } = await createdLate(
      sim.kubeconfig,
      "machinesets",
      (progress) =>
        waitForWindowsNodes({
          machineSets: ["late-win"],
          timeoutMs: DEADLINE_MS,
          ...progress,
        }),
      /MachineSet late-win does not exist yet/,
      () => createWindowsMachineSet(sim, "late-win", 1),
    );
    assert.equal(result.configuredCount, 1);
  });
});

describe("waiting core: an operator's life as OLM runs it", function () {
  this.timeout(30_000);
  const pinned = "windows-machine-config-operator.v10.16.1";
  const head = "windows-machine-config-operator.v10.17.0";
  const sub = "windows-machine-config-operator";
  let sim: Simulator;
  const plans = () => sim.store.list(K.installPlan.apiVersion, K.installPlan.kind, { namespace: WMCO_NS });
  const approvedPlans = () =>
    plans()
      .filter((p) => (p.spec as { approved: boolean }).approved)
      .map((p) => (p.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames.join(","))
      .sort();
  before(async () => {
    sim = await startTestSimulator();
  });
  after(() => sim.stop());

  it("moving a pinned CSV under Manual approval approves only the new pin's InstallPlan and finishes when it succeeds; observing approves nothing", async () => {
    const kubeconfig = sim.kubeconfig;
    subscribeToWmco(sim, { approval: "Manual", startingCSV: pinned });
    const first = await waitForOperatorInstall({
      kubeconfig,
      namespace: WMCO_NS,
      subscription: sub,
      startingCSV: pinned,
      timeoutMs: DEADLINE_MS,
    });
    assert.equal(first.result.installedCSV, pinned);
    // catalog/operator.go syncResolvingNamespace offers the channel head in a plan of its own.
    await storeUntil(sim, "the upgrade InstallPlan", () =>
      plans().some((p) =>
        (p.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames.includes(head),
      ),
    );
    // A read-only observation (what `pulumi refresh` runs) sends no approval, though the pin moved.
    const observed = await observeOperatorInstall({
      kubeconfig,
      namespace: WMCO_NS,
      subscription: sub,
      startingCSV: head,
      timeoutMs: DEADLINE_MS,
    });
    assert.equal(observed.state, "waiting");
    assert.match(
      observed.message,
      /approving InstallPlan install-\w+ for windows-machine-config-operator.v10.17.0/,
    );
    assert.deepEqual(approvedPlans(), [pinned]);
    const moved = await waitForOperatorInstall({
      kubeconfig,
      namespace: WMCO_NS,
      subscription: sub,
      startingCSV: head,
      timeoutMs: DEADLINE_MS,
    });
    assert.deepEqual(moved.result, {
      installedCSV: head,
      phase: "Succeeded",
      approvedInstallPlan: moved.result.approvedInstallPlan,
      // WMCO owns no CRD.
      crds: [],
    });
    assert.deepEqual(approvedPlans(), [pinned, head]);
  });

  it("a read-only observation reports a failure OLM retries as pending, without waiting for it to persist", async () => {
    subscribeWithoutOperatorGroup(sim);
    await storeUntil(
      sim,
      "ResolutionFailed",
      () =>
        (
          (sim.store.get(keyOf(K.subscription, "wmco", "no-group"))?.status as { conditions?: unknown[] })
            ?.conditions ?? []
        ).length > 0,
    );
    const observed = await observeOperatorInstall({
      kubeconfig: sim.kubeconfig,
      namespace: "no-group",
      subscription: "wmco",
      timeoutMs: DEADLINE_MS,
    });
    assert.equal(observed.state, "waiting");
    assert.match(observed.message, /ResolutionFailed: .* \(for 0m0s; retried, final after 5m0s\)/);
  });

  it("uninstalling after the Subscription went finds the operator's CSV by OLM's label and reports gone only once it is", async () => {
    const csvKey = keyOf(K.csv, head, WMCO_NS);
    assert.ok(sim.store.get(csvKey), "the CSV of the first test runs");
    // A CSV of another operator in the namespace stays.
    sim.store.create({
      apiVersion: "operators.coreos.com/v1alpha1",
      kind: "ClusterServiceVersion",
      metadata: { name: "other.v1.0.0", namespace: WMCO_NS, labels: { "operators.coreos.com/other.x": "" } },
      spec: { displayName: "Other", version: "1.0.0" },
    });
    // Something holds the operator's CSV a while, as a finalizer does.
    sim.store.mutate(csvKey, (c) => (c.metadata.finalizers = ["example.com/hold"]));
    // A retried destroy: the Subscription went in the first attempt.
    sim.store.delete(keyOf(K.subscription, sub, WMCO_NS));
    const seen: string[] = [];
    const { result } = await uninstallOperator({
      kubeconfig: sim.kubeconfig,
      namespace: WMCO_NS,
      subscription: sub,
      timeoutMs: DEADLINE_MS,
      progressIntervalMs: 0,
      onProgress: (e) => {
        seen.push(e.message);
        if (
          /waiting for ClusterServiceVersion windows-machine-config-operator.v10.17.0 to go/.test(e.message)
        )
          setImmediate(() => sim.store.mutate(csvKey, (c) => (c.metadata.finalizers = [])));
      },
    });
    assert.deepEqual(result.csvs, [head]);
    assert.ok(
      seen.some((m) => m.includes(`waiting for ClusterServiceVersion ${head} to go`)),
      seen.join("\n"),
    );
    assert.equal(sim.store.get(csvKey), undefined);
    assert.ok(sim.store.get(keyOf(K.csv, "other.v1.0.0", WMCO_NS)), "another operator's CSV is left alone");
  });
});
