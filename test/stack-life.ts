/**
 * The steps of a program's life under the engine that every example and harness program goes through
 * (issue #10): a revision whose preview plans exactly its changes and whose up does that plan, a
 * refresh that finds nothing, drift made by hand that the next refresh finds, and a destroy that leaves
 * nothing of the stack. Each end-to-end suite runs its program through them once, with the checks of
 * its own subject in between, so that the simulator pays for one life per program.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import type { CheckpointResource } from "../harness/engine/checkpoint";
import type { Diagnostic } from "../harness/engine/diagnostics";
import { deploy, DeployOptions, DeployResult, destroy, preview, refresh } from "../harness/deploy";
import { fieldManagerName } from "../harness/engine/kube-check";
import { DYNAMIC_TYPE_PREFIX } from "../harness/dynamic";
import { kubeType } from "../harness/kube";
import { reveal } from "../harness/secrets";
import { WMCO } from "../builders/windows";
import { isObject } from "../primitives/objects";
import { kubectl as runKubectl } from "../simulator/apiserver/kubectl";
import type { Simulator } from "../simulator/simulator";

/** The node arguments that run `npm run deploy -- <args>` as the script does (from the repository's root). */
export function deployCommandArgs(args: string[]): string[] {
  return [
    "-r",
    "ts-node/register/transpile-only",
    path.join(__dirname, "..", "harness", "deploy.ts"),
    ...args,
  ];
}

/** The steps that change something, as `pulumi preview --diff` lists them: `<op> <name>`. */
export function changes(result: DeployResult): string[] {
  return result.plan.filter((s) => s.op !== "same" && s.op !== "read").map((s) => `${s.op} ${s.name}`);
}

/** kubectl against the cluster of `kubeconfig` (a file); its stdout, or a failure with its stderr. */
export async function kubectl(kubeconfig: string, args: string[]): Promise<string> {
  const { code, stdout, stderr } = await runKubectl(kubeconfig, args);
  if (code !== 0) throw new Error(stderr || `kubectl ${args.join(" ")} exited ${code}`);
  return stdout;
}

/** `kubectl create -f` of an object, as a user builds a cluster by hand; the file is written in `dir`. */
export async function kubectlCreate(kubeconfig: string, dir: string, object: unknown): Promise<void> {
  const file = path.join(dir, `by-hand-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(object));
  await kubectl(kubeconfig, ["create", "--validate=false", "-f", file]);
}

/** `kubectl patch --type=merge` of an object, as an operator edits one by hand. */
export function mergePatch(resource: string, name: string, body: object, namespace?: string): string[] {
  return [
    "patch",
    resource,
    name,
    ...(namespace ? ["-n", namespace] : []),
    "--type=merge",
    `-p=${JSON.stringify(body)}`,
  ];
}

/** The Kubernetes objects a stack manages (not the ones it only reads). */
export function managedObjects(resources: CheckpointResource[]): CheckpointResource[] {
  return resources.filter((r) => kubeType(r.type) && !(r as { external?: boolean }).external);
}

/** The object a resource of the stack declares, as the cluster has it. */
function liveObject(sim: Simulator, resource: CheckpointResource) {
  const type = kubeType(resource.type)!;
  const { name, namespace } = (reveal(resource.inputs) as { metadata: { name: string; namespace?: string } })
    .metadata;
  return sim.store.get({ apiVersion: type.apiVersion, kind: type.kind, name, namespace });
}

/** What of `resource` the cluster has: the object, or for a patch the fields its manager applied. */
export function inCluster(sim: Simulator, resource: CheckpointResource): string | undefined {
  const type = kubeType(resource.type)!;
  const live = liveObject(sim, resource);
  if (!live) return undefined;
  const name = live.metadata.name;
  if (!type.patch) return `${type.kind} ${name}`;
  const managers = (live.metadata.managedFields ?? []) as Array<{ manager?: string }>;
  const manager = fieldManagerName(resource.urn, resource.inputs ?? {}, resource.outputs ?? {});
  return managers.some((m) => m.manager === manager) ? `fields of ${type.kind} ${name}` : undefined;
}

/**
 * The maps a released patch left empty in its object (`spec.nodePlacement.nodeSelector.matchLabels`):
 * kube-apiserver removes them with the fields (structured-merge-diff's Updater.prune), so none remain.
 */
export function emptiedByPatch(sim: Simulator, resource: CheckpointResource): string[] {
  const type = kubeType(resource.type)!;
  const { metadata, ...declared } = reveal(resource.inputs) as Record<string, unknown> & {
    metadata: { name: string; namespace?: string };
  };
  const live = sim.store.get({ ...metadata, apiVersion: type.apiVersion, kind: type.kind });
  const found: string[] = [];
  const walk = (want: unknown, have: unknown, path: string[]): void => {
    if (!isObject(want) || !isObject(have)) return;
    for (const [key, value] of Object.entries(want)) {
      if (!isObject(value) || !Object.hasOwn(have, key)) continue;
      const there = have[key];
      if (isObject(there) && Object.keys(there).length === 0 && Object.keys(value).length > 0)
        found.push(`${type.kind} ${metadata.name}: ${[...path, key].join(".")}`);
      walk(value, there, [...path, key]);
    }
  };
  const { apiVersion: _a, kind: _k, ...fields } = declared;
  walk(fields, live, []);
  return found;
}

/** The stack's objects that the cluster lacks: none after an up. */
export function missingObjects(sim: Simulator, result: DeployResult): string[] {
  return managedObjects(result.state.deployment.resources)
    .filter((r) => inCluster(sim, r) === undefined)
    .map((r) => r.urn);
}

/**
 * The first revision: its preview plans exactly `expected` (`<op> <name>`) when given, and its up does
 * what the preview planned and leaves every object the stack manages in the cluster.
 */
export async function previewThenUp(
  sim: Simulator,
  options: DeployOptions,
  expected?: string[],
): Promise<DeployResult> {
  const planned = await preview(options);
  assert.deepEqual(planned.errors, []);
  if (expected) assert.deepEqual(changes(planned).sort(), [...expected].sort(), "the first preview");
  const up = await deploy(options);
  assert.deepEqual(up.errors, []);
  assert.deepEqual(changes(up).sort(), changes(planned).sort(), "up did what the preview planned");
  assert.deepEqual(missingObjects(sim, up), [], "every object the stack manages is in the cluster");
  return up;
}

/**
 * A revision (`options` carries its config): its preview plans exactly `expected` (`<op> <name>`; a
 * waiter whose awaited objects did not change must not be among them), and its up does that plan.
 */
export async function revise(
  options: DeployOptions,
  expected: string[],
): Promise<DeployResult & { previewed: Diagnostic[] }> {
  const previewed: Diagnostic[] = [];
  const planned = await preview({
    ...options,
    onDiagnostic: (d) => {
      previewed.push(d);
      options.onDiagnostic?.(d);
    },
  });
  assert.deepEqual(planned.errors, []);
  assert.deepEqual(changes(planned).sort(), [...expected].sort(), "the revision's preview");
  const up = await deploy(options);
  assert.deepEqual(up.errors, []);
  assert.deepEqual(changes(up).sort(), changes(planned).sort(), "up did what the preview planned");
  return { ...up, previewed };
}

/**
 * The stack's state lost, an up of `options` (whose config says `adopt=true`) takes back every object the
 * lost state held: each imported as the cluster holds it, none created again, replaced or deleted (the
 * patches of objects the operators own apply again, which adopts them by nature; the waiters wait
 * again). Its preview plans what it does; its state holds every resource the lost one did but a Windows
 * pool's generated key, WMCO's key Secret keeping the key it had.
 */
export async function adoptsWhatItLost(sim: Simulator, options: DeployOptions): Promise<DeployResult> {
  const lost = (JSON.parse(fs.readFileSync(options.statePath!, "utf8")) as DeployResult["state"]).deployment
    .resources;
  const objects = managedObjects(lost).filter((r) => !kubeType(r.type)!.patch);
  const uids = () => objects.map((r) => liveObject(sim, r)?.metadata.uid);
  const before = uids();
  const keySecrets = objects.filter(
    (r) => kubeType(r.type)!.kind === "Secret" && liveObject(sim, r)?.metadata.name === WMCO.privateKeySecret,
  );
  const keysBefore = keySecrets.map((r) => liveObject(sim, r)?.data);
  fs.rmSync(options.statePath!);
  const planned = await preview(options);
  assert.deepEqual(planned.errors, []);
  const up = await deploy(options);
  assert.deepEqual(up.errors, []);
  assert.deepEqual(changes(up).sort(), changes(planned).sort(), "up did what the preview planned");
  const imported = objects.map((r) => `import ${r.urn.split("::").pop()}`);
  assert.deepEqual(
    imported.filter((step) => !changes(up).includes(step)),
    [],
    "every object the lost state held is imported",
  );
  assert.deepEqual(
    changes(up).filter((step) => /^(replace|delete) /.test(step)),
    [],
    "nothing replaced or deleted",
  );
  assert.deepEqual(uids(), before, "the same objects, none made again");
  // A Windows pool adopting keeps the key WMCO has instead of generating one (WindowsNodePool): the
  // generated key alone is left out of the new state, and the Secret holds the same key as before.
  const generatedKeys = lost.filter((r) => r.type === `${DYNAMIC_TYPE_PREFIX}RsaPrivateKey`);
  const urns = new Set(up.state.deployment.resources.map((r) => r.urn));
  assert.deepEqual(
    lost.filter((r) => r.custom && !urns.has(r.urn)).map((r) => r.urn),
    generatedKeys.map((r) => r.urn),
    "the new state holds what the lost one did, but the key it generated",
  );
  assert.ok(
    generatedKeys.length === 0 ||
      keysBefore.some((data) => (data as Record<string, string> | undefined)?.[WMCO.privateKeyField]),
    "the generated key was in WMCO's Secret",
  );
  assert.deepEqual(
    up.state.deployment.resources.filter((r) => r.type === `${DYNAMIC_TYPE_PREFIX}RsaPrivateKey`),
    [],
    "no key generated while adopting",
  );
  assert.deepEqual(
    keySecrets.map((r) => liveObject(sim, r)?.data),
    keysBefore,
    "WMCO's key Secret keeps its key",
  );
  return up;
}

/**
 * After an up: a refresh finds no drift and the next preview plans nothing; then `byHand` (kubectl
 * arguments) changes the cluster, and the refresh after it finds exactly `drifted` (resource name to the
 * drifted paths), which the next preview plans to undo.
 */
export async function refreshFindsDrift(
  sim: Simulator,
  options: DeployOptions,
  byHand: string[],
  drifted: Record<string, string[]>,
): Promise<void> {
  const clean = await refresh(options);
  assert.deepEqual(clean.errors, []);
  assert.deepEqual(changes(clean), [], "a refresh right after up finds no drift");
  const same = await preview(options);
  assert.deepEqual(same.errors, []);
  assert.deepEqual(changes(same), [], "nothing to do after a refresh without drift");

  await kubectl(sim.kubeconfigPath, byHand);
  const found = await refresh(options);
  assert.deepEqual(found.errors, []);
  const changed = found.plan.filter((s) => s.op !== "same" && s.op !== "read");
  assert.deepEqual(
    Object.fromEntries(changed.map((s) => [s.name, s.diffs])),
    drifted,
    `the refresh after kubectl ${byHand.join(" ")}`,
  );
  const undo = await preview(options);
  assert.deepEqual(undo.errors, []);
  assert.deepEqual(
    changes(undo).sort(),
    Object.keys(drifted)
      .map((name) => `update ${name}`)
      .sort(),
    "the next up undoes the drift",
  );
}

/** `pulumi destroy` deletes every resource of the state and leaves no object of the stack in the cluster. */
export async function destroyLeavesNothing(sim: Simulator, options: DeployOptions): Promise<DeployResult> {
  const before = JSON.parse(fs.readFileSync(options.statePath!, "utf8")) as DeployResult["state"];
  const objects = managedObjects(before.deployment.resources);
  assert.ok(objects.length > 0, "the stack has objects to destroy");
  const down = await destroy(options);
  assert.deepEqual(down.errors, []);
  assert.deepEqual(objects.map((r) => inCluster(sim, r)).filter(Boolean), [], "left in the cluster");
  assert.deepEqual(
    objects.filter((r) => kubeType(r.type)!.patch).flatMap((r) => emptiedByPatch(sim, r)),
    [],
    "maps a released patch left empty",
  );
  assert.deepEqual(
    down.state.deployment.resources.filter((r) => r.custom && !r.type.startsWith("pulumi:providers:")),
    [],
    "left in the state",
  );
  return down;
}

/**
 * The objects the cluster's operators own that the components patch: the default IngressController
 * (ingress operator), the image registry's Config (registry operator) and `cluster-monitoring-config`
 * (an admin's, read by the monitoring operator).
 */
const OPERATOR_OWNED = [
  {
    apiVersion: "operator.openshift.io/v1",
    kind: "IngressController",
    name: "default",
    namespace: "openshift-ingress-operator",
  },
  { apiVersion: "imageregistry.operator.openshift.io/v1", kind: "Config", name: "cluster" },
  {
    apiVersion: "v1",
    kind: "ConfigMap",
    name: "cluster-monitoring-config",
    namespace: "openshift-monitoring",
  },
];

/**
 * What users and operators read of each operator-owned object, field by field (`spec.replicas`,
 * `data.config.yaml`, `metadata.labels.x`), "absent" for an object that does not exist: what the API
 * server keeps for itself (resourceVersion, managedFields, status) is left out.
 */
export function operatorOwned(sim: Simulator): Record<string, unknown> {
  const leaves = (value: unknown, path: string[], out: Record<string, unknown>) => {
    if (isObject(value) && Object.keys(value).length > 0) {
      for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], out);
    } else out[path.join(".")] = value;
    return out;
  };
  return Object.fromEntries(
    OPERATOR_OWNED.map((ref) => {
      const live = sim.store.get(ref);
      const name = `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}`;
      if (!live) return [name, "absent"];
      const { labels, annotations, finalizers } = live.metadata;
      const { spec, data } = live as { spec?: unknown; data?: unknown };
      return [name, leaves({ metadata: { labels, annotations, finalizers }, spec, data }, [], {})];
    }),
  );
}

/**
 * Hand edits (kubectl arguments, each a command) of fields the stack declares: the refresh after them
 * finds exactly the resources `drifted`, the up after it takes them back (with the resources `pending`
 * an earlier refresh found drifted) without a conflict, and the cluster then holds every field they
 * declare.
 */
export async function upTakesBackHandEdits(
  sim: Simulator,
  options: DeployOptions,
  byHand: string[][],
  drifted: string[],
  pending: string[] = [],
): Promise<void> {
  for (const command of byHand) await kubectl(sim.kubeconfigPath, command);
  const found = await refresh(options);
  assert.deepEqual(found.errors, []);
  const updates = drifted.map((name) => `update ${name}`);
  assert.deepEqual(changes(found).sort(), [...updates].sort(), "the refresh after the hand edits");
  const up = await deploy(options);
  assert.deepEqual(up.errors, [], "up after hand edits of declared fields");
  assert.deepEqual(
    changes(up).sort(),
    [...new Set([...pending.map((name) => `update ${name}`), ...updates])].sort(),
    "up takes back what the hand edits changed",
  );
  const declared = up.state.deployment.resources.filter(
    (r) => kubeType(r.type) && drifted.some((name) => r.urn.endsWith(`::${name}`)),
  );
  assert.deepEqual(
    declared.flatMap((r) => notAsDeclared(sim, r)),
    [],
    "the cluster holds what is declared",
  );
}

/** The declared fields (leaves of the inputs) of `resource` whose value the cluster does not hold. */
function notAsDeclared(sim: Simulator, resource: CheckpointResource): string[] {
  const type = kubeType(resource.type)!;
  const inputs = reveal(resource.inputs) as Record<string, unknown> & {
    metadata: { name: string; namespace?: string };
  };
  const { name, namespace } = inputs.metadata;
  const live = sim.store.get({ apiVersion: type.apiVersion, kind: type.kind, name, namespace });
  const differ: string[] = [];
  const walk = (want: unknown, have: unknown, path: string[]): void => {
    if (isObject(want) && Object.keys(want).length > 0) {
      for (const [key, value] of Object.entries(want))
        walk(value, isObject(have) ? have[key] : undefined, [...path, key]);
    } else if (JSON.stringify(want) !== JSON.stringify(have)) {
      differ.push(`${type.kind} ${name}: ${path.join(".")}`);
    }
  };
  const { apiVersion: _a, kind: _k, ...fields } = inputs;
  walk(fields, live, []);
  return differ;
}

/**
 * A checkpoint an earlier release wrote, as if that release had deployed the stack on this cluster: the
 * objects it names stand for this cluster's (a first up of the same program made them), so each of
 * their UIDs is replaced by the live object's, which the guards' and waiters' UID checks then find.
 */
export function checkpointOnCluster(sim: Simulator, checkpoint: string): string {
  let text = fs.readFileSync(checkpoint, "utf8");
  for (const resource of JSON.parse(text).deployment.resources as Array<{ outputs?: object }>) {
    const { apiVersion, kind, metadata } = (resource.outputs ?? {}) as {
      apiVersion?: string;
      kind?: string;
      metadata?: { name: string; namespace?: string; uid?: string };
    };
    if (!apiVersion || !kind || !metadata?.uid) continue;
    const live = sim.store.get({ apiVersion, kind, name: metadata.name, namespace: metadata.namespace });
    assert.ok(live, `${kind} ${metadata.name} is in the cluster`);
    text = text.split(metadata.uid).join(live.metadata.uid!);
  }
  return text;
}
