/**
 * The rules of a real `pulumi up` with pulumi-kubernetes 4.x that the engine holds programs to, each
 * checked against the upstream function that decides it (pulumi/pulumi-kubernetes provider/pkg, and
 * pulumi/pulumi pkg/resource/deploy). One stack per behaviour, all on one simulator.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { kubectl as runKubectl } from "../../simulator/apiserver/kubectl";
import { WIDGET_CRD } from "../../simulator/apiserver/testing";
import { Simulator } from "../../simulator/simulator";
import { simulatorForSuite } from "../../test/harness-simulator";
import { changes, kubectl } from "../../test/stack-life";
import { deploy, DeployOptions, destroy, preview } from "../deploy";
import { Cluster, CSA_FIELD_MANAGER, describeKubeError, fieldManager } from "../kube";
import { cancelStack, Checkpoint, loadCheckpoint, lockDir, lockStack, saveCheckpoint } from "./checkpoint";
import { loadProject } from "../project";
import { isSecret, reveal } from "../secrets";

const PROGRAM = path.join(__dirname, "..", "testdata", "strict-kube");
const AUTOSCALER = path.join(__dirname, "..", "testdata", "existing-autoscaler");
const INIT_FAILURE = path.join(__dirname, "..", "testdata", "init-failure");

describe("the engine holds programs to pulumi-kubernetes' rules", function () {
  this.timeout(120_000);
  let sim: Simulator;
  let dir: string;
  const suite = simulatorForSuite("harness-strict-");
  before(() => ({ sim, dir } = suite));

  /** The stack `stack` of the program, with `config` (`key=value`) on top. */
  const stackOf = (stack: string, config: string[]): DeployOptions => ({
    project: loadProject(PROGRAM, "dev", [`name=${stack}`, ...config]),
    kubeconfigPath: sim.kubeconfigPath,
    statePath: path.join(dir, `${stack}.json`),
  });
  const live = (kind: string, name: string) =>
    sim.store.get({ apiVersion: "v1", kind, name, namespace: "default" });
  const managers = (kind: string, name: string) =>
    ((live(kind, name)?.metadata.managedFields ?? []) as Array<{ manager: string; operation: string }>)
      .map((e) => `${e.manager} ${e.operation}`)
      .sort();
  const urnOf = (name: string) =>
    `urn:pulumi:dev::harness-strict-kube::kubernetes:core/v1:ConfigMap::${name}`;
  const stateOf = (result: { state: Checkpoint }, name: string) =>
    result.state.deployment.resources.find((r) => r.urn === urnOf(name));
  /** The field manager pulumi-kubernetes keeps in a resource's state (checkpointObject). */
  const managerOf = (result: { state: Checkpoint }, name: string) =>
    stateOf(result, name)?.outputs?.__fieldManager as string;

  it("fails to create an object that exists, with pulumi-kubernetes' advice, and adopts it through a provider with upsertExistingObjects (await.go, Creation)", async () => {
    await kubectl(sim.kubeconfigPath, [
      "create",
      "configmap",
      "taken",
      "-n",
      "default",
      "--from-literal=value=one",
    ]);
    const strict = await deploy(stackOf("taken", []));
    assert.equal(strict.ok, false);
    assert.match(
      strict.errors.join("\n"),
      /^ConfigMap taken: resource "urn:pulumi:\S+::taken" was not successfully created by the Kubernetes API server: configmaps "taken" already exists\n\nThe resource already exists/,
    );
    assert.match(strict.errors.join("\n"), /set upsertExistingObjects on the provider/);
    assert.deepEqual(
      strict.state.deployment.resources.filter((r) => r.type.endsWith(":ConfigMap")),
      [],
      "the failed create is not in the state",
    );
    assert.equal(live("ConfigMap", "taken")?.metadata.labels, undefined, "the object is untouched");

    const adopted = await deploy(stackOf("taken", ["upsertProvider=true"]));
    assert.deepEqual(adopted.errors, []);
    // The upsert applies without force: a field the hand-made object holds at another value conflicts
    // (patchForce), so the object is adopted as it is and the program's additions applied.
    assert.deepEqual(live("ConfigMap", "taken")?.metadata.labels, { tier: "a" });
    assert.ok(managers("ConfigMap", "taken").includes(`${managerOf(adopted, "taken")} Apply`));
    assert.deepEqual((await destroy(stackOf("taken", ["upsertProvider=true"]))).errors, []);
  });

  it("creates client-side as pulumi-kubernetes, keeps a random field manager in the state (or applies as the one an earlier release's checkpoint implies) and moves the create's fields to it on the first update, and replaces a ConfigMap whose data changes unless the provider makes it mutable (Creation, checkpointObject, fieldManagerName, fixCSAFieldManagers, forceNewProperties)", async () => {
    const first = await deploy(stackOf("fresh", []));
    assert.deepEqual(first.errors, []);
    assert.deepEqual(managers("ConfigMap", "fresh"), [`${CSA_FIELD_MANAGER} Update`]);
    const manager = managerOf(first, "fresh");
    assert.match(manager, /^pulumi-kubernetes-[0-9a-f]{8}$/);
    assert.equal(stateOf(first, "fresh")?.outputs?.__initialApiVersion, "v1");

    const relabelled = await deploy(stackOf("fresh", ["tier=b"]));
    assert.deepEqual(relabelled.errors, []);
    assert.deepEqual(changes(relabelled), ["update fresh"]);
    assert.deepEqual(managers("ConfigMap", "fresh"), [`${manager} Apply`]);
    assert.equal(managerOf(relabelled, "fresh"), manager, "the same manager on every update");

    const uid = live("ConfigMap", "fresh")?.metadata.uid;
    const replaced = await deploy(stackOf("fresh", ["tier=b", "value=two"]));
    assert.deepEqual(replaced.errors, []);
    assert.deepEqual(
      replaced.plan.filter((s) => s.op !== "same").map((s) => [s.op, s.diffs]),
      [["replace", ["data.value"]]],
    );
    assert.notEqual(live("ConfigMap", "fresh")?.metadata.uid, uid, "a new object");

    // The state keeps the inputs it was written for beside the live object (checkpointObject).
    const statePath = stackOf("fresh", []).statePath!;
    const written = loadCheckpoint(statePath);
    const state = written.deployment.resources.find((r) => r.urn === urnOf("fresh"))!;
    assert.deepEqual(reveal(state.outputs!.__inputs), reveal(state.inputs));
    // A checkpoint written before the harness kept the manager and the inputs: applied as the name it
    // derived then, its inputs the engine's, so the label alone is an update.
    delete state.outputs!.__fieldManager;
    delete state.outputs!.__inputs;
    saveCheckpoint(statePath, written);
    const older = await deploy(stackOf("fresh", ["tier=c", "value=two"]));
    assert.deepEqual(older.errors, []);
    assert.deepEqual(changes(older), ["update fresh"]);
    assert.deepEqual(managers("ConfigMap", "fresh"), [`${fieldManager(urnOf("fresh"))} Apply`]);

    // pulumi-kubernetes diffs the old live object, pruned to the shape of `__inputs`, against the new
    // inputs (provider.go, Diff; parseCheckpointObject; pruneLiveState): a value the server stored
    // otherwise is a change though the inputs did not change, and a field the kept inputs lack is new.
    const kept = loadCheckpoint(statePath);
    const outputs = kept.deployment.resources.find((r) => r.urn === urnOf("fresh"))!.outputs!;
    outputs.data = { value: "as-the-server-stored-it" };
    delete (outputs.__inputs as { metadata: { labels?: unknown } }).metadata.labels;
    saveCheckpoint(statePath, kept);
    const againstLive = await preview(stackOf("fresh", ["tier=c", "value=two"]));
    assert.deepEqual(
      againstLive.plan.filter((s) => s.op !== "same").map((s) => [s.op, s.diffs]),
      [["replace", ["data.value", "metadata.labels"]]],
    );

    const mutable = await preview(
      stackOf("fresh", ["tier=b", "value=three", "kubernetes:enableConfigMapMutable=true"]),
    );
    assert.deepEqual(changes(mutable), ["update fresh"]);
    assert.deepEqual((await destroy(stackOf("fresh", []))).errors, []);
  });
  it("replaces a Secret whose data changes, as the preview says, unless the provider makes Secrets mutable (diff.go, forceNewProperties)", async () => {
    const secret = (config: string[]) => stackOf("key", ["kind=Secret", ...config]);
    assert.deepEqual((await deploy(secret([]))).errors, []);
    const rotated = await preview(secret(["value=two"]));
    assert.deepEqual(
      rotated.plan.filter((s) => s.op !== "same").map((s) => [s.op, s.diffs]),
      [["replace", ["data.key"]]],
    );
    const mutable = await preview(secret(["value=two", "kubernetes:enableSecretMutable=true"]));
    assert.deepEqual(changes(mutable), ["update key"]);
    const relabelled = await preview(secret(["tier=b", 'replaceOnChanges=["metadata.labels"]']));
    assert.deepEqual(changes(relabelled), ["replace key"], "replaceOnChanges (step_generator.go)");
    assert.deepEqual((await destroy(secret([]))).errors, []);
  });

  it("imports an existing object as an import step, then applies what the program declares differently, and fails on a missing one (step.go, ImportStep.Apply); refuses to replace it while the program still imports it (step_generator.go)", async () => {
    await kubectl(sim.kubeconfigPath, [
      "create",
      "configmap",
      "adopted",
      "-n",
      "default",
      "--from-literal=value=one",
    ]);
    const adopt = stackOf("adopted", ["import=default/adopted"]);
    const planned = await preview(adopt);
    assert.deepEqual(planned.errors, []);
    assert.deepEqual(changes(planned), ["import adopted", "update adopted"]);
    const uid = live("ConfigMap", "adopted")?.metadata.uid;
    const up = await deploy(adopt);
    assert.deepEqual(up.errors, []);
    assert.deepEqual(changes(up), changes(planned));
    assert.equal(live("ConfigMap", "adopted")?.metadata.uid, uid, "the same object, never recreated");
    assert.deepEqual(live("ConfigMap", "adopted")?.metadata.labels, { tier: "a" });
    const state = up.state.deployment.resources.find((r) => r.urn === urnOf("adopted"));
    assert.equal(state?.importID, "default/adopted");
    assert.deepEqual(changes(await preview(adopt)), [], "imported once: the next preview plans nothing");
    // A replacement would change the ID the program still gives (step_generator.go): a warning at
    // preview, a failure at up.
    const warnings: string[] = [];
    const rewritten = stackOf("adopted", ["import=default/adopted", "value=two"]);
    const replacing = await preview({
      ...rewritten,
      onDiagnostic: (d) => void (d.severity === "warning" && warnings.push(d.message)),
    });
    assert.deepEqual(changes(replacing), ["replace adopted"]);
    assert.deepEqual(warnings, [
      'previously-imported resources that still specify an ID may not be replaced; please remove the `import` declaration from your program;\ndata: {"value":"one"} => {"value":"two"}',
    ]);
    const refused = await deploy(rewritten);
    assert.match(
      refused.errors.join("\n"),
      /^ConfigMap adopted: previously-imported resources that still specify an ID/,
    );
    assert.equal(live("ConfigMap", "adopted")?.metadata.uid, uid, "not replaced");

    const missing = await deploy(stackOf("missing", ["import=default/missing"]));
    assert.equal(missing.ok, false);
    assert.deepEqual(missing.errors, ["ConfigMap missing: resource 'default/missing' does not exist"]);
    assert.deepEqual((await destroy(adopt)).errors, []);
  });
  it("waits for a delete until the object is gone, and past customTimeouts.delete fails and keeps the resource in state (await.go, Deletion)", async () => {
    const held = stackOf("held", ["deleteTimeout=1s"]);
    assert.deepEqual((await deploy(held)).errors, []);
    // Another controller's finalizer holds the object, as a terminating namespace or a draining machine would.
    const finalizers = (list: string[]) => [
      "patch",
      "configmap",
      "held",
      "-n",
      "default",
      "--type=merge",
      `-p=${JSON.stringify({ metadata: { finalizers: list } })}`,
    ];
    await kubectl(sim.kubeconfigPath, finalizers(["example.com/hold"]));
    const stuck = await destroy(held);
    assert.equal(stuck.ok, false);
    assert.match(
      stuck.errors.join("\n"),
      /ConfigMap held: timed out after 1s waiting for ConfigMap held to be deleted \(finalizers: example.com\/hold\)/,
    );
    assert.ok(
      stuck.state.deployment.resources.some((r) => r.urn === urnOf("held")),
      "kept in state",
    );
    assert.ok(live("ConfigMap", "held")?.metadata.deletionTimestamp, "deleting");

    await kubectl(sim.kubeconfigPath, finalizers([]));
    const down = await destroy(held);
    assert.deepEqual(down.errors, []);
    assert.equal(live("ConfigMap", "held"), undefined);
  });

  it("refuses to delete a protected resource and leaves a retainOnDelete one in the cluster (step.go, DeleteStep.Apply)", async () => {
    const guarded = stackOf("guarded", ["protect=true"]);
    assert.deepEqual((await deploy(guarded)).errors, []);
    const refused = await destroy(guarded);
    assert.equal(refused.ok, false);
    assert.match(refused.errors.join("\n"), /cannot be deleted\nbecause it is protected/);
    assert.ok(live("ConfigMap", "guarded"), "still in the cluster");
    assert.ok(
      refused.state.deployment.resources.some((r) => r.urn === urnOf("guarded")),
      "still in state",
    );
    const unprotected = stackOf("guarded", []);
    assert.deepEqual((await deploy(unprotected)).errors, []);
    assert.deepEqual((await destroy(unprotected)).errors, []);

    const kept = stackOf("kept", ["retainOnDelete=true"]);
    assert.deepEqual((await deploy(kept)).errors, []);
    const down = await destroy(kept);
    assert.deepEqual(down.errors, []);
    assert.ok(
      !down.state.deployment.resources.some((r) => r.urn === urnOf("kept")),
      "dropped from the state",
    );
    assert.ok(live("ConfigMap", "kept"), "left in the cluster");
  });
  it("writes the state after every step and locks the stack against a second operation at once (diy backend Lock, snapshot manager)", async () => {
    const options = stackOf("locked", []);
    let written: string[] = [];
    const watched: DeployOptions = {
      ...options,
      onEvent: (e) => {
        // The checkpoint on disk when the step reports done, before the deployment ends.
        if (e.phase === "done")
          written = loadCheckpoint(options.statePath).deployment.resources.map((r) => r.urn);
      },
    };
    const [first, second] = await Promise.all([deploy(watched), deploy(options)]);
    assert.deepEqual(first.errors, []);
    assert.ok(written.includes(urnOf("locked")), "the create was in the checkpoint as soon as it was done");
    assert.equal(second.ok, false);
    assert.match(
      second.errors[0],
      /^the stack is currently locked by 1 lock\(s\)\. Either wait for the other process\(es\) to end or delete the lock file with `pulumi cancel`\.\n {2}\S+\.locks\/locked\.json\/[0-9a-f-]+\.json: created by \S+@\S+ \(pid \d+\)/,
    );
    assert.deepEqual(
      fs.readdirSync(lockDir(options.statePath!)),
      [],
      "the lock is released after the operation",
    );
    assert.deepEqual((await destroy(options)).errors, []);
  });
  it("fails a library user's first up on a cluster that already has the ClusterAutoscaler, naming it and the ways out, and adopts it through a provider that upserts (await.go, Creation)", async () => {
    const handMade = {
      apiVersion: "autoscaling.openshift.io/v1",
      kind: "ClusterAutoscaler",
      metadata: { name: "default" },
      spec: { balanceSimilarNodeGroups: true, logVerbosity: 4 },
    };
    const made = await runKubectl(sim.kubeconfigPath, ["create", "-f", "-"], JSON.stringify(handMade));
    assert.equal(made.code, 0, made.stderr);
    const stack = (config: string[]): DeployOptions => ({
      project: loadProject(AUTOSCALER, "dev", config),
      kubeconfigPath: sim.kubeconfigPath,
      statePath: path.join(dir, "autoscaler.json"),
    });
    const first = await deploy(stack([]));
    assert.equal(first.ok, false);
    assert.match(
      first.errors.join("\n"),
      /ClusterAutoscaler autoscaler-cluster-autoscaler: .*clusterautoscalers.autoscaling.openshift.io "default" already exists[^]*use `pulumi import`[^]*set upsertExistingObjects on the provider/,
    );
    const adopted = await deploy(stack(["kubernetes:upsertExistingObjects=true"]));
    assert.deepEqual(adopted.errors, []);
    const live = sim.store.get({ apiVersion: handMade.apiVersion, kind: handMade.kind, name: "default" });
    assert.equal(
      (live?.spec as { logVerbosity?: number }).logVerbosity,
      4,
      "what the program does not declare stays",
    );
    // Adopted, it is the stack's: destroy deletes it.
    assert.deepEqual((await destroy(stack(["kubernetes:upsertExistingObjects=true"]))).errors, []);
    assert.equal(
      sim.store.get({ apiVersion: handMade.apiVersion, kind: handMade.kind, name: "default" }),
      undefined,
    );
  });
  it("tries reads and applies again on 429 and 503 after their Retry-After, as client-go does (with_retry.go, checkWait)", async () => {
    const cluster = new Cluster(fs.readFileSync(sim.kubeconfigPath, "utf8"));
    sim.faults.failNextRequests(2, 429, 0);
    assert.equal((await cluster.read("v1", "Namespace", "default")).metadata?.name, "default");
    sim.faults.failNextRequests(2, 503, 0);
    const applied = await cluster.apply(
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "retried", namespace: "default" },
      },
      "retry-test",
      false,
    );
    assert.equal(applied.metadata?.name, "retried");
    await cluster.delete(applied);
  });
  it("gives a request up after 10 tries again, naming it, its status and its tries (rest/client.go, maxRetries 10)", async () => {
    const slept: number[] = [];
    const cluster = new Cluster(
      fs.readFileSync(sim.kubeconfigPath, "utf8"),
      async (ms) => void slept.push(ms),
    );
    sim.faults.failNextRequests(11, 429, 1);
    const error = await cluster.read("v1", "Namespace", "default").catch((e: unknown) => e);
    assert.equal(
      describeKubeError(error),
      "429: injected fault: TooManyRequests (GET v1 Namespace default: gave up after 11 tries)",
    );
    assert.deepEqual(slept, Array<number>(10).fill(1000));
    assert.equal(sim.faults.status().pendingErrors, 0);
  });
  it("applies through a storm of 429 that outlasts no request's tries, and fails a create one outlasts naming it, keeping the state as it was; the next up creates it (rest/with_retry.go)", async () => {
    const options = stackOf("storm", []);
    // A storm longer than a request's 11 tries, whose pauses the engine takes at once.
    const failed = await deploy({
      ...options,
      sleep: async () => undefined,
      onEvent: (e) => {
        if (e.phase === "start" && e.operation === "create") sim.faults.failRequestsFor(3600, 429, 1);
      },
    });
    sim.faults.reset();
    assert.equal(failed.ok, false);
    assert.match(
      failed.errors.join("\n"),
      /^ConfigMap storm: .*injected fault: TooManyRequests \(POST v1 ConfigMap default\/storm: gave up after 11 tries\)/,
    );
    assert.equal(stateOf(failed, "storm"), undefined);
    assert.equal(live("ConfigMap", "storm"), undefined);
    // A 2-second storm with Retry-After 1 as the create starts: its tries outlast it, in real time.
    const through = await deploy({
      ...options,
      onEvent: (e) => {
        if (e.phase === "start" && e.operation === "create") sim.faults.failRequestsFor(2, 429, 1);
      },
    });
    assert.deepEqual(through.errors, []);
    assert.deepEqual(changes(through), ["create storm"]);
    assert.ok(stateOf(through, "storm"));
    assert.ok(live("ConfigMap", "storm"));
    assert.deepEqual((await destroy(options)).errors, []);
  });
  it("tries a read again one second after its connection was reset, but not a write, whose retry could apply it twice (client-go rest/request.go, isErrRetryableFunc; with_retry.go, IsNextRetry)", async () => {
    const cluster = new Cluster(fs.readFileSync(sim.kubeconfigPath, "utf8"));
    sim.faults.resetNextRequests(1);
    assert.equal((await cluster.read("v1", "Namespace", "default")).metadata?.name, "default");
    assert.equal(sim.faults.status().pendingResets, 0, "the reset was met and the read tried again");
    sim.faults.resetNextRequests(1);
    const object = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "reset", namespace: "default" } };
    await assert.rejects(cluster.apply(object, "retry-test", false), /ECONNRESET|socket hang up/);
    assert.equal(live("ConfigMap", "reset"), undefined, "not tried again");
  });
  it("fails the step whose create met refused connections during an up, keeps the state it had, and the next up creates it (client-go: a refused connection is not retried; the provider's Create fails)", async () => {
    const options = stackOf("cut", []);
    let refusing: Promise<void> | undefined;
    const cut = await deploy({
      ...options,
      onEvent: (e) => {
        // The API server goes away as the create starts, as during a control-plane restart.
        if (e.phase === "start" && e.operation === "create") refusing ??= sim.faults.refuseConnections(0.5);
      },
    });
    await refusing;
    assert.equal(cut.ok, false);
    assert.match(
      cut.errors.join("\n"),
      /^ConfigMap cut: resource "urn:pulumi:\S+::cut" was not successfully created by the Kubernetes API server: .*(ECONNREFUSED|ECONNRESET|socket hang up)/,
    );
    assert.equal(stateOf(cut, "cut"), undefined);
    const again = await deploy(options);
    assert.deepEqual(again.errors, []);
    assert.deepEqual(changes(again), ["create cut"]);
    assert.deepEqual((await destroy(options)).errors, []);
  });
  it("lets the next operation go ahead once pulumi cancel deleted the lock a killed one left (diy backend, CancelCurrentUpdate)", async () => {
    const options = stackOf("stale", []);
    lockStack(options.statePath!);
    const refused = await deploy(options);
    assert.equal(refused.ok, false);
    assert.match(refused.errors[0], /^the stack is currently locked by 1 lock\(s\)/);
    assert.equal(cancelStack(options.statePath!), 1);
    assert.deepEqual((await deploy(options)).errors, []);
    assert.deepEqual((await destroy(options)).errors, []);
  });
  it("renames a resource kept by an alias without replacing its object, where without one the create fails on the object that exists (step_generator.go, aliases; await.go, Creation)", async () => {
    const statePath = path.join(dir, "renamed.json");
    const stack = (config: string[]): DeployOptions => ({ ...stackOf("renamed", config), statePath });
    assert.deepEqual((await deploy(stack(["name=before"]))).errors, []);
    const uid = live("ConfigMap", "before")?.metadata.uid;

    const unaliased = await deploy(stack(["name=after", "objectName=before"]));
    assert.equal(unaliased.ok, false);
    assert.match(unaliased.errors.join("\n"), /configmaps "before" already exists/);

    const renamed = await deploy(stack(["name=after", "objectName=before", "renamedFrom=before"]));
    assert.deepEqual(renamed.errors, []);
    assert.deepEqual(changes(renamed), [], "a rename is no create, delete or replace");
    const urns = renamed.state.deployment.resources.map((r) => r.urn);
    assert.ok(urns.includes(urnOf("after")) && !urns.includes(urnOf("before")));
    assert.equal(live("ConfigMap", "before")?.metadata.uid, uid, "the same object");
    assert.deepEqual((await destroy(stack([]))).errors, []);
  });
  it("keeps a dynamic resource its provider made but could not initialize in the state with its id, and updates it on the next up (step.go, InitErrors); replaces it when a path replaceOnChanges covers changes, its old half deleted after or, with deleteBeforeReplace, before (step_generator.go, diffResource, applyReplaceOnChanges)", async () => {
    const stack = (env: NodeJS.ProcessEnv, config: string[] = []): DeployOptions => ({
      project: loadProject(INIT_FAILURE, "dev", config),
      kubeconfigPath: sim.kubeconfigPath,
      statePath: path.join(dir, "init-failure.json"),
      env,
    });
    const failed = await deploy(stack({ MADE_FAILS: "1" }));
    assert.equal(failed.ok, false);
    assert.match(failed.errors.join("\n"), /made: made, but not ready/);
    const kept = failed.state.deployment.resources.find((r) => r.urn.endsWith("::made"));
    assert.equal(kept?.id, "made-1");
    assert.deepEqual(kept?.initErrors, ["made, but not ready"]);

    const retried = await deploy(stack({}));
    assert.deepEqual(retried.errors, []);
    assert.deepEqual(changes(retried), ["update made"], "updated though its inputs did not change");
    const ready = retried.state.deployment.resources.find((r) => r.urn.endsWith("::made"));
    assert.equal(ready?.initErrors, undefined);

    // Its provider has no diff: the engine diffs the inputs and replaceOnChanges covers what changed.
    const log = path.join(dir, "made.log");
    const calls = () => fs.readFileSync(log, "utf8").trim().split("\n");
    const grown = await deploy(stack({ MADE_LOG: log }, ["size=2", 'replaceOnChanges=["size"]']));
    assert.deepEqual(grown.errors, []);
    assert.deepEqual(
      grown.plan.filter((s) => s.op !== "same").map((s) => [s.op, s.diffs]),
      [["replace", ["size"]]],
    );
    assert.deepEqual(
      calls(),
      ["create made-2 in a", "delete made-1"],
      "created before the old one is deleted",
    );
    const moved = await deploy(
      stack({ MADE_LOG: log }, [
        "size=2",
        "zone=b",
        'replaceOnChanges=["spec.zone"]',
        "deleteBeforeReplace=true",
      ]),
    );
    assert.deepEqual(moved.errors, []);
    assert.deepEqual(
      moved.plan.filter((s) => s.op !== "same").map((s) => [s.op, s.diffs]),
      [["replace", ["spec.zone"]]],
    );
    assert.deepEqual(calls().slice(2), ["delete made-2", "create made-2 in b"], "deleted first");
    const malformed = await preview(stack({}, ["size=3", "zone=b", 'replaceOnChanges=["spec["]']));
    assert.equal(malformed.ok, false);
    assert.match(malformed.errors.join("\n"), /made: missing closing bracket in array index/);
  });
  it("keeps a secret nested in an input secret in the outputs at the same path, never plaintext in the checkpoint (provider_plugin.go, annotateSecrets)", async () => {
    const options = stackOf("nested", ["secretValue=true", "value=n3sted-s3cret"]);
    const up = await deploy(options);
    assert.deepEqual(up.errors, []);
    const state = up.state.deployment.resources.find((r) => r.urn === urnOf("nested"))!;
    assert.ok(isSecret((state.outputs?.data as Record<string, unknown>).value), "the output at data.value");
    assert.ok(!fs.readFileSync(options.statePath!, "utf8").includes("n3sted-s3cret"));
    assert.deepEqual((await destroy(options)).errors, []);
  });
  it("awaits a create until the object meets pulumi.com/waitFor, and past customTimeouts.create keeps it in the state with InitErrors, updated by the next up once ready, and awaits an update alike (await.go, Creation and Update; metadata.ReadyCondition; provider.go, Create's and Update's partialError; step_generator.go)", async () => {
    const waitFor = "waitFor=jsonpath={.metadata.labels.ready}=yes";
    const awaited = stackOf("awaited", [waitFor, "createTimeout=1s"]);
    const timedOut = await deploy(awaited);
    assert.equal(timedOut.ok, false);
    assert.deepEqual(timedOut.errors, [
      `ConfigMap awaited: resource "${urnOf("awaited")}" was successfully created, but the Kubernetes API server reported that it failed to fully initialize or become live: timed out waiting for the condition`,
    ]);
    const kept = stateOf(timedOut, "awaited");
    assert.equal(kept?.id, "default/awaited");
    assert.deepEqual(kept?.initErrors, [timedOut.errors[0].replace("ConfigMap awaited: ", "")]);
    assert.ok(live("ConfigMap", "awaited"), "the object was created");

    await kubectl(sim.kubeconfigPath, ["label", "configmap", "awaited", "-n", "default", "ready=yes"]);
    const ready = await deploy(awaited);
    assert.deepEqual(ready.errors, []);
    assert.deepEqual(changes(ready), ["update awaited"], "updated though its inputs did not change");
    assert.equal(stateOf(ready, "awaited")?.initErrors, undefined);

    // An update awaits too, within customTimeouts.update (provider.go, Update's partialError).
    await kubectl(sim.kubeconfigPath, ["label", "configmap", "awaited", "-n", "default", "ready-"]);
    const stale = await deploy(stackOf("awaited", [waitFor, "updateTimeout=1s", "tier=b"]));
    assert.deepEqual(stale.errors, [
      `ConfigMap awaited: the Kubernetes API server reported that "default/awaited" failed to fully initialize or become live: timed out waiting for the condition`,
    ]);
    assert.equal(stateOf(stale, "awaited")?.initErrors?.length, 1);
    assert.deepEqual(live("ConfigMap", "awaited")?.metadata.labels, { tier: "b" }, "the update was applied");
    assert.deepEqual((await destroy(awaited)).errors, []);
  });

  it("names an unnamed object after its resource with a random suffix, keeps that name on updates, and creates a replacement under a new name before deleting the old object (naming.go, AssignNameIfAutonamable, AdoptOldAutonameIfUnnamed; provider.go, Diff's deleteBeforeReplace; step_generator.go, Check on replace)", async () => {
    const auto = (config: string[]) => stackOf("auto", ["autoname=true", ...config]);
    const first = await deploy(auto([]));
    assert.deepEqual(first.errors, []);
    const id = stateOf(first, "auto")!.id!;
    assert.match(id, /^default\/auto-[0-9a-f]{8}$/);
    const name = id.split("/")[1];
    assert.equal(live("ConfigMap", name)?.metadata.annotations?.["pulumi.com/autonamed"], "true");

    const relabelled = await deploy(auto(["tier=b"]));
    assert.deepEqual(changes(relabelled), ["update auto"]);
    assert.equal(stateOf(relabelled, "auto")?.id, id, "the same name");

    let oldAtReplace: unknown;
    const replaced = await deploy({
      ...auto(["tier=b", "value=two"]),
      onEvent: (e) => {
        if (e.phase === "done" && e.operation === "replace") oldAtReplace = live("ConfigMap", name);
      },
    });
    assert.deepEqual(replaced.errors, []);
    assert.deepEqual(changes(replaced), ["replace auto"]);
    const renamed = stateOf(replaced, "auto")!.id!;
    assert.match(renamed, /^default\/auto-[0-9a-f]{8}$/);
    assert.notEqual(renamed, id);
    assert.ok(oldAtReplace, "the old object was still there when its replacement was created");
    assert.equal(live("ConfigMap", name), undefined, "and is deleted after it");

    const deletedFirst = await deploy({
      ...auto(["tier=b", "value=three", "deleteBeforeReplace=true"]),
      onEvent: (e) => {
        if (e.phase === "done" && e.operation === "replace")
          oldAtReplace = live("ConfigMap", renamed.split("/")[1]);
      },
    });
    assert.deepEqual(deletedFirst.errors, []);
    assert.equal(oldAtReplace, undefined, "deleteBeforeReplace deletes the old object first");
    assert.deepEqual((await destroy(auto([]))).errors, []);
  });
  it('tries a create again while its namespace is not there yet (NotFound), after 1, 2, 4... seconds, gives a kind no CRD serves up after six tries over 63 s with the provider\'s advice, and creates a custom resource whose CRD arrives between tries, each failed try a status line (await.go, Creation: SleepingRetry WithMaxRetries(5) WithBackoffFactor(2), Do(IsNotFound, IsNoMatchError), the client made again after a NoMatch, LogStatus "Retry #%d; creation failed"; provider.go, Create)', async () => {
    const waits: number[] = [];
    const late = await deploy({
      ...stackOf("late", ["namespace=late-namespace"]),
      sleep: async (ms) => {
        waits.push(ms);
        // The namespace appears during the second wait, as one created by another step would.
        if (waits.length === 2)
          sim.store.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "late-namespace" } });
      },
    });
    assert.deepEqual(late.errors, []);
    assert.deepEqual(waits, [1000, 2000], "tried three times: two NotFound, then created");
    assert.ok(
      sim.store.get({ apiVersion: "v1", kind: "ConfigMap", name: "late", namespace: "late-namespace" }),
    );
    assert.deepEqual((await destroy(stackOf("late", ["namespace=late-namespace"]))).errors, []);

    waits.length = 0;
    const never = await deploy({
      ...stackOf("widget", ["kind=Widget"]),
      sleep: async (ms) => void waits.push(ms),
    });
    assert.deepEqual(waits, [1000, 2000, 4000, 8000, 16000, 32000]);
    assert.deepEqual(never.errors, [
      'Widget widget: creation of resource "urn:pulumi:dev::harness-strict-kube::kubernetes:example.com/v1:Widget::widget" with kind example.com/v1/Widget failed because the Kubernetes API server reported that the apiVersion for this resource does not exist. Verify that any required CRDs have been created: no matches for kind "Widget" in version "example.com/v1"',
    ]);
    assert.deepEqual(
      never.state.deployment.resources.filter((r) => r.type.includes("Widget")),
      [],
    );

    // The CRD arrives during the second wait, as an operator's InstallPlan creates it while the stack
    // creates its first custom resource: the kind is served from then on and the third try creates it.
    // Each failed try shows as the provider's status line (LogStatus "Retry #n; creation failed").
    waits.length = 0;
    const status: string[] = [];
    const crdLate = await deploy({
      ...stackOf("widget", ["kind=Widget"]),
      onDiagnostic: (d) => void (d.ephemeral && status.push(d.message)),
      sleep: async (ms) => {
        waits.push(ms);
        if (waits.length === 2) {
          const made = await runKubectl(
            sim.kubeconfigPath,
            ["create", "-f", "-"],
            JSON.stringify(WIDGET_CRD),
          );
          assert.equal(made.code, 0, made.stderr);
        }
      },
    });
    assert.deepEqual(crdLate.errors, []);
    assert.deepEqual(waits, [1000, 2000]);
    assert.deepEqual(status, [
      'Retry #0; creation failed: no matches for kind "Widget" in version "example.com/v1"',
      'Retry #1; creation failed: no matches for kind "Widget" in version "example.com/v1"',
    ]);
    assert.ok(
      sim.store.get({ apiVersion: "example.com/v1", kind: "Widget", name: "widget", namespace: "default" }),
    );
    assert.deepEqual((await destroy(stackOf("widget", ["kind=Widget"]))).errors, []);
    const gone = await runKubectl(sim.kubeconfigPath, ["delete", "crd", WIDGET_CRD.metadata.name]);
    assert.equal(gone.code, 0, gone.stderr);
  });
  it("warns at Check and fails a create at once, without retries, for an apiVersion the cluster's Kubernetes no longer serves (provider.go, Check and Create; await.go, skipRetry; kinds.RemovedAPIVersion and RemovedAPIError)", async () => {
    const waits: number[] = [];
    const warnings: string[] = [];
    const removed = await deploy({
      ...stackOf("legacy", ["kind=LegacyRuntimeClass"]),
      onDiagnostic: (d) => void (d.severity === "warning" && warnings.push(d.message)),
      sleep: async (ms) => void waits.push(ms),
    });
    const message =
      'apiVersion "node.k8s.io/v1beta1/RuntimeClass" was removed in Kubernetes 1.25. Use "node.k8s.io/v1/RuntimeClass" instead.\nSee https://git.k8s.io/kubernetes/CHANGELOG/CHANGELOG-1.25.md#deprecation for more information.';
    assert.deepEqual(warnings, [message]);
    assert.deepEqual(waits, [], "no CRD is waited for");
    assert.deepEqual(removed.errors, [
      `RuntimeClass legacy: resource "urn:pulumi:dev::harness-strict-kube::kubernetes:node.k8s.io/v1beta1:RuntimeClass::legacy" was not successfully created by the Kubernetes API server: ${message}`,
    ]);
  });
  it("previews a create and an update as dry runs the API server checks: a name it refuses, or a field another manager holds, fails the preview as it would the up, and nothing is stored; the up's refused update keeps the object read back with InitErrors (provider.go, Create and Update with preview, Update's readLiveObject and partialError; await.go, Creation and ssaUpdate with dryRun=All, patchForce, handleSSAErr)", async () => {
    const refused = await preview(stackOf("dry", ["objectName=Not_A_Name"]));
    assert.equal(refused.ok, false);
    assert.match(
      refused.errors.join("\n"),
      /^ConfigMap dry: resource "urn:pulumi:\S+::dry" was not successfully created by the Kubernetes API server: ConfigMap "Not_A_Name" is invalid: .*RFC 1123 subdomain/,
    );

    // Created server-side (upserted), so no client-side field of the create makes the preview force.
    const upserted = ["upsertProvider=true"];
    assert.deepEqual((await deploy(stackOf("dry", upserted))).errors, []);
    // Another manager takes the label, as a controller or a colleague's server-side apply would.
    const cluster = new Cluster(fs.readFileSync(sim.kubeconfigPath, "utf8"));
    const contested = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "dry", namespace: "default" },
    };
    await cluster.apply(
      { ...contested, metadata: { ...contested.metadata, labels: { tier: "x" } } },
      "someone-else",
      true,
    );
    const conflict = await preview(stackOf("dry", [...upserted, "tier=b"]));
    assert.equal(conflict.ok, false);
    assert.match(
      conflict.errors.join("\n"),
      /^ConfigMap dry: the Kubernetes API server reported that "default\/dry" failed to fully initialize or become live: server-side apply field conflict detected, see https:\/\/www\.pulumi\.com\/\S+ for troubleshooting help\nThe resource managed by field manager "pulumi-kubernetes-[0-9a-f]{8}" had an apply conflict: Apply failed with 1 conflict: conflict with "someone-else".*\.metadata\.labels\.tier/s,
    );
    assert.deepEqual(live("ConfigMap", "dry")?.metadata.labels, { tier: "x" }, "a dry run stores nothing");
    // The up's apply is refused alike: the object read back stays in the state with the refusal as
    // InitErrors, so the next up tries again (provider.go, Update: readLiveObject, partialError).
    const refusedUp = await deploy(stackOf("dry", [...upserted, "tier=b"]));
    assert.deepEqual(refusedUp.errors, conflict.errors);
    assert.deepEqual(stateOf(refusedUp, "dry")?.initErrors, [
      conflict.errors[0].replace("ConfigMap dry: ", ""),
    ]);
    assert.deepEqual(live("ConfigMap", "dry")?.metadata.labels, { tier: "x" });
    assert.deepEqual((await destroy(stackOf("dry", upserted))).errors, []);
  });
});
