/**
 * The waiting core against the simulator over both transports a kubeconfig may name (https, and plain
 * http as behind `kubectl proxy` / `oc proxy`), under each watch fault: every wait converges, and no
 * path throws outside the promise the wait returns. Lists and watches ask only for the pool's objects.
 * The watch's decisions follow client-go's reflector (kubernetes/client-go, tools/cache/reflector.go:
 * `Reflector.watch`, `Reflector.Run`, `isExpiredError`); the selectors follow kube-apiserver's
 * (a label selector on any list or watch, field selectors on custom resources limited to
 * metadata.name and metadata.namespace).
 */
import { strict as assert } from "node:assert";
import { ApiClient } from "./api";
import { observePoolRollout, waitForAutoscalersReady, waitForMachineSetsReady } from "./index";
import { WATCH_IDLE_MS } from "./reflector";
import {
  createMachineSet,
  DEADLINE_MS,
  K,
  keyOf,
  machineConfig,
  Simulator,
  startTestSimulator,
  storeUntil,
} from "../../test/simulator-fixture";
import { fakeClock, FakeClock } from "../../test/fake-clock";
import { recordingClient } from "../../test/recording-client";
import { startBufferingProxy } from "../../test/buffering-proxy";
import { machineConfigPool } from "../../builders/machineconfiguration";

const NS = "openshift-machine-api";

/** What escaped every promise during the suite: must stay empty. */
const escaped: unknown[] = [];
const record = (error: unknown) => escaped.push(error);

function sentQueries(client: ApiClient & { sent: string[] }) {
  return client.sent.map((path) => {
    const url = new URL(path, "http://api");
    const kind = url.pathname.split("/").filter(Boolean).pop();
    const verb = url.searchParams.get("watch") === "true" ? "watch" : "list";
    const selectors = ["labelSelector", "fieldSelector"]
      .map((k) => url.searchParams.get(k))
      .filter(Boolean)
      .join(" ");
    return { verb, kind, selectors, timeoutSeconds: url.searchParams.get("timeoutSeconds") };
  });
}

function addForeignNodes(sim: Simulator, count: number): void {
  for (let i = 0; i < count; i++) {
    sim.store.create({
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: `other-${i}`,
        labels: { "node-role.kubernetes.io/other": "", "kubernetes.io/os": "linux" },
      },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    });
    // Each with its MachineConfigNode, as the MCO keeps one per node of a pool.
    sim.store.create({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfigNode",
      metadata: { name: `other-${i}` },
      spec: {
        node: { name: `other-${i}` },
        pool: { name: "other" },
        configVersion: { desired: "rendered-other" },
      },
    });
  }
}

for (const protocol of ["https", "http"] as const) {
  describe(`waiting over ${protocol}: each watch fault converges, nothing escapes`, function () {
    let sim: Simulator;
    let n = 0;
    before(async () => {
      process.on("unhandledRejection", record);
      process.on("uncaughtException", record);
      sim = await startTestSimulator({ protocol });
    });
    afterEach(() => {
      sim.faults.reset();
      assert.deepEqual(escaped, [], "an error escaped the wait's promise");
    });
    after(async () => {
      await sim?.stop();
      process.off("unhandledRejection", record);
      process.off("uncaughtException", record);
    });

    /** Scales a new pool of one MachineSet to `replicas` and waits for it, the fault set up by `inject`. */
    async function poolWith(
      inject: (client: ReturnType<typeof recordingClient>, create: () => void) => void,
      options: {
        clock?: FakeClock;
        timeoutMs?: number;
        replicas?: number;
        createLate?: boolean;
        kubeconfig?: string;
      } = {},
    ) {
      const name = `infra-${protocol}-${++n}`;
      const client = recordingClient(options.kubeconfig ?? sim.kubeconfig, options.clock);
      const create = () =>
        createMachineSet(sim, name, {
          replicas: options.replicas ?? 1,
          nodeLabels: { [`node-role.kubernetes.io/${name}`]: "" },
        });
      // With createLate, the fault creates the MachineSet itself, so the wait cannot finish before it.
      if (!options.createLate) create();
      inject(client, create);
      const outcome = await waitForMachineSetsReady({
        client,
        machineSets: [name],
        timeoutMs: options.timeoutMs ?? DEADLINE_MS,
        clock: options.clock,
      });
      assert.equal(outcome.result.readyMachineCount, options.replicas ?? 1);
      return { outcome, client, name };
    }

    /** Applies `fault` to the open watches once `opened` of the waiter's are open (polled: not a timed assertion). */
    function onceWatching(client: { sent: string[] }, fault: () => number, opened = 3): void {
      const tryNow = () => {
        const watches = client.sent.filter((p) => p.includes("watch=true")).length;
        if (watches >= opened && fault() > 0) return;
        setTimeout(tryNow, 5);
      };
      tryNow();
    }

    it("an ordinary 410 ERROR event on resume: re-lists after a pause", async () => {
      const clock = fakeClock();
      const { client } = await poolWith(() => sim.faults.expireNextWatchResume(1), { clock });
      const queries = sentQueries(client);
      const expired = queries.findIndex((q) => q.verb === "watch");
      assert.ok(
        queries.slice(expired + 1).some((q) => q.verb === "list" && q.kind === queries[expired].kind),
        "the expired source was listed again",
      );
      assert.ok(clock.slept.length >= 1);
    });

    it("a 410 storm: converges through re-lists that back off", async () => {
      const { client } = await poolWith(() => sim.faults.startGoneStorm());
      assert.ok(sentQueries(client).filter((q) => q.verb === "list").length > 3);
    });

    it("silent watches (half-open): the wait returns once silence is noticed, not at its deadline", async () => {
      const clock = fakeClock();
      const thirtyMinutes = 30 * 60_000;
      const { outcome } = await poolWith(
        (client) => {
          sim.faults.silenceNextWatches(3);
          // Once the three watches are open and silent and the cluster converged, time passes
          // (polled: the silenced watches change nothing in the store).
          const advance = () => {
            const name = `infra-${protocol}-${n}`;
            const set = sim.store.get(keyOf(K.machineSet, name, NS));
            const ready = (set?.status as { readyReplicas?: number } | undefined)?.readyReplicas === 1;
            if (sim.faults.status().pendingSilentWatches > 0 || !ready || client.sent.length < 5)
              return void setTimeout(advance, 5);
            clock.advance(WATCH_IDLE_MS);
          };
          void advance();
        },
        { clock, timeoutMs: thirtyMinutes },
      );
      assert.equal(outcome.elapsedMs, WATCH_IDLE_MS);
    });

    it("behind a proxy that holds streamed answers until they end: every watch is silent, and a list after each silence shows the convergence", async () => {
      const clock = fakeClock();
      const proxy = await startBufferingProxy(sim.server, sim.caCert);
      try {
        const { outcome, client } = await poolWith(
          () => {
            // Once the cluster converged while the waiter's watches were open and silent, time passes.
            const advance = () => {
              const set = sim.store.get(keyOf(K.machineSet, `infra-${protocol}-${n}`, NS));
              const ready = (set?.status as { readyReplicas?: number } | undefined)?.readyReplicas === 1;
              if (!ready || proxy.held() < 3) return void setTimeout(advance, 5);
              clock.advance(WATCH_IDLE_MS);
            };
            void advance();
          },
          { clock, timeoutMs: 30 * 60_000, kubeconfig: proxy.kubeconfig(sim.token) },
        );
        assert.equal(outcome.elapsedMs, WATCH_IDLE_MS);
        const queries = sentQueries(client);
        const watched = queries.filter((q) => q.verb === "watch").map((q) => q.kind);
        const relisted = queries
          .slice(queries.findIndex((q) => q.verb === "watch"))
          .filter((q) => q.verb === "list");
        assert.deepEqual(
          [...new Set(relisted.map((q) => q.kind))].sort(),
          [...new Set(watched)].sort(),
          "each silent source listed again",
        );
      } finally {
        await proxy.stop();
      }
    });

    const cuts = {
      "every watch connection reset": () => sim.faults.resetWatches(),
      "the server closing every watch at once": () => sim.faults.dropWatches(),
    };
    for (const [fault, cut] of Object.entries(cuts)) {
      it(fault, async () => {
        let cutWatches = 0;
        // The MachineSet appears only once the watch on it was cut: it must be replaced to see it.
        await poolWith(
          (client, create) =>
            onceWatching(
              client,
              () => {
                cutWatches = cut();
                if (cutWatches > 0) create();
                return cutWatches;
              },
              1,
            ),
          { createLate: true },
        );
        assert.ok(cutWatches > 0, "the fault met open watches");
      });
    }

    for (const code of [429, 503] as const) {
      it(`a burst of ${code}`, async () => {
        const clock = fakeClock();
        await poolWith(() => sim.faults.failNextRequests(3, code, 1), { clock });
        assert.equal(sim.faults.status().pendingErrors, 0);
        assert.ok(clock.slept.filter((ms) => ms >= 1000).length >= 3);
      });
    }

    if (protocol === "https") {
      it("asks only for the pool's objects: a 1,000-node cluster costs a wait what a small one does", async () => {
        // The pools first, then the rest of the cluster (the simulator's controllers are slow to bring
        // up machines among 1,000 nodes); then the waits, which find the pools ready, are measured.
        // `bare` sets no node label in its template, so its nodes share none with the other pool's:
        // they are asked for by name (the nodelink controller copies only the template's labels).
        const { name } = await poolWith(() => undefined, { replicas: 3 });
        const bare = `${name}-bare`;
        createMachineSet(sim, bare, { replicas: 2 });
        const pools = [name, bare];
        await waitForMachineSetsReady({
          client: recordingClient(sim.kubeconfig),
          machineSets: [bare],
          timeoutMs: DEADLINE_MS,
        });
        const measure = async () => {
          const client = recordingClient(sim.kubeconfig);
          const again = await waitForMachineSetsReady({ client, machineSets: pools, timeoutMs: DEADLINE_MS });
          assert.equal(again.result.readyMachineCount, 5);
          return client;
        };
        const small = await measure();
        // A pool of the first MachineSet's nodes, its nodeSelector set-based, rolling out a config that
        // one node's daemon is busy applying (the simulator's holdOsUpdate: a slow OS image pull), so
        // that its wait, measured below on 1,000 nodes, lists its nodes and their MachineConfigNodes
        // while the simulator's controllers need not roll out among 1,000 nodes.
        const role = `node-role.kubernetes.io/${name}`;
        const nodeSelector = {
          matchExpressions: [
            { key: role, operator: "Exists" },
            { key: "node-role.kubernetes.io/other", operator: "DoesNotExist" },
          ],
        };
        const pool = machineConfigPool({ name });
        sim.store.create({ ...pool, spec: { ...pool.spec, nodeSelector } });
        sim.store.create(machineConfig(`99-${name}`, { [`/etc/${name}.conf`]: "x" }, name));
        for (const node of sim.store.list("v1", "Node").filter((n) => role in (n.metadata.labels ?? {})))
          sim.faults.inject("holdOsUpdate", { node: node.metadata.name });
        await storeUntil(sim, "a node of the pool applying its config", () =>
          sim.store
            .list(K.machineConfigNode.apiVersion, K.machineConfigNode.kind)
            .some((m) =>
              (
                m.status as { conditions?: Array<{ type: string; status: string }> } | undefined
              )?.conditions?.some((c) => c.type === "UpdateExecuted" && c.status === "Unknown"),
            ),
        );
        addForeignNodes(sim, 1000 - sim.store.list("v1", "Node").length);
        assert.equal(sim.store.list("v1", "Node").length, 1000);
        const client = await measure();
        // What each distinct query returned: a source listed again asks for the same objects (a watch
        // answered 410, as the simulator keeps the last 1,000 events as kube-apiserver's watch cache keeps
        // a window, and its controllers write many while they take in 1,000 nodes: client-go's
        // reflector lists again then too).
        const objects = (c: typeof client) =>
          [
            ...new Map(c.lists.map((l) => [`${l.kind} ${l.query}`, `${l.kind} ${l.objects}`])).values(),
          ].sort();
        assert.deepEqual(objects(client), objects(small), "the same objects on 1,000 nodes as on a few");
        const bareNodes = sim.store
          .list("machine.openshift.io/v1beta1", "Machine")
          .filter((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === bare)
          .map((m) => (m.status as { nodeRef: { name: string } }).nodeRef.name)
          .sort();
        assert.deepEqual(
          [
            ...new Set(
              sentQueries(client)
                .filter((q) => q.verb === "list")
                .map((q) => `${q.kind}: ${q.selectors}`),
            ),
          ].sort(),
          [
            `machines: machine.openshift.io/cluster-api-machineset in (${name},${bare})`,
            `machinesets: metadata.name=${bare}`,
            `machinesets: metadata.name=${name}`,
            ...bareNodes.map((node) => `nodes: metadata.name=${node}`),
            `nodes: node-role.kubernetes.io/${name}=`,
          ].sort(),
        );
        for (const q of sentQueries(client).filter((w) => w.verb === "watch")) {
          assert.notEqual(q.selectors, "", `${q.kind} watched unselected`);
          const seconds = Number(q.timeoutSeconds);
          assert.ok(seconds >= 300 && seconds < 600, `watch of ${seconds}s`);
        }
        assert.deepEqual(objects(client), [
          "machines 5",
          "machinesets 1",
          "machinesets 1",
          "nodes 1",
          "nodes 1",
          "nodes 3",
        ]);

        // The autoscaler wait too: its MachineSet's Machines and nodes only, once it knows the target.
        sim.store.create({
          apiVersion: "autoscaling.openshift.io/v1beta1",
          kind: "MachineAutoscaler",
          metadata: { name, namespace: NS },
          spec: {
            minReplicas: 3,
            maxReplicas: 5,
            scaleTargetRef: { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet", name },
          },
        });
        const scaler = recordingClient(sim.kubeconfig);
        const ready = await waitForAutoscalersReady({
          client: scaler,
          autoscalers: [name],
          timeoutMs: DEADLINE_MS,
        });
        assert.equal(ready.result.readyMachineCount, 3);
        // The autoscaler and its MachineSet by name, not the namespace's (as a client-go user reads one).
        assert.deepEqual(
          [...new Set(sentQueries(scaler).map((q) => `${q.kind}: ${q.selectors}`))],
          [
            `machineautoscalers: metadata.name=${name}`,
            `machinesets: metadata.name=${name}`,
            `machines: machine.openshift.io/cluster-api-machineset in (${name})`,
            `nodes: node-role.kubernetes.io/${name}=`,
          ],
        );
        assert.deepEqual(objects(scaler), ["machineautoscalers 1", "machines 3", "machinesets 1", "nodes 3"]);

        // The pool wait too, asking the API server with the pool's whole selector
        // (metav1.LabelSelectorAsSelector's String, which apimachinery labels.Parse reads) and for each
        // node's MachineConfigNode by name (named as its node, labelled with nothing: MCO
        // upgrade_monitor.go GenerateAndApplyMachineConfigNodes), never for the cluster's.
        const pooled = recordingClient(sim.kubeconfig);
        const rolled = await observePoolRollout({
          client: pooled,
          pool: name,
          machineConfigs: [`99-${name}`],
          timeoutMs: DEADLINE_MS,
        });
        // The phase is read from the MachineConfigNode that now names the new pool (the operator applies
        // each node's with its primary pool: MCO pkg/operator/sync.go syncMachineConfigNodes).
        assert.match(rolled.message, /applying files and OS/);
        assert.equal(rolled.result?.machineCount, 3);
        const poolNodes = sim.store
          .list("v1", "Node")
          .filter((node) => role in (node.metadata.labels ?? {}))
          .map((node) => node.metadata.name)
          .sort();
        assert.equal(poolNodes.length, 3);
        assert.deepEqual(
          [...new Set(sentQueries(pooled).map((q) => `${q.kind}: ${q.selectors}`))]
            .filter((q) => !q.startsWith("machineconfigpools"))
            // The MachineConfig's read by name, then the pool's nodes and their MachineConfigNodes.
            .sort(),
          [
            `99-${name}: `,
            ...poolNodes.map((node) => `machineconfignodes: metadata.name=${node}`),
            `nodes: ${role},!node-role.kubernetes.io/other`,
          ].sort(),
        );
        assert.deepEqual(objects(pooled), [
          "machineconfignodes 1",
          "machineconfignodes 1",
          "machineconfignodes 1",
          "machineconfigpools 1",
          "nodes 3",
        ]);
      });
    }
  });
}
