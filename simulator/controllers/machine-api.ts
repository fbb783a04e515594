/**
 * machine-api: the MachineSet controller (replicas -> Machines, status), the cloud actuator (Machine
 * phases Provisioning -> Provisioned -> Running, drain and removal on deletion) and the nodelink
 * controller (Machine <-> Node by providerID). Linux kubelets join by themselves once the instance has
 * booted; Windows instances only become nodes through WMCO.
 */
import { Json, field, getCondition, labelsOf, obj } from "../../primitives/objects";
import { DELETE_MACHINE_ANNOTATION, MACHINE_API_NAMESPACE } from "../../primitives/openshift";
import { LabelSelector, selectorMatches, selectorString } from "../../primitives/selectors";
import {
  buildNode,
  copyMachineMetadata,
  isWindowsMachine,
  linkNode,
  providerSpecOf,
  provisionMachine,
} from "../cluster/machines";
import { PLATFORMS, PlatformSpec } from "../cluster/platforms";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { Stepper, WorkQueue } from "./workqueue";
import { Condition, K, controllerRef, isControlledBy, isKind, keyOf, timestamp, uniqueName } from "./util";

export const MACHINE_FINALIZER = "machine.machine.openshift.io";
const NODE_MACHINE_ANNOTATION = "machine.openshift.io/machine";
const UNSCHEDULABLE_TAINT = { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" };

function nodeReady(node: KubeObject | undefined): boolean {
  return getCondition(field<Condition[]>(node, "status", "conditions"), "Ready")?.status === "True";
}

/** Sets `spec.unschedulable` and its taint as `kubectl cordon` (and the node lifecycle controller) do. */
export function cordon(node: KubeObject, unschedulable: boolean, now: Date): void {
  const spec = obj(node.spec);
  const taints = ((spec.taints as Array<{ key: string }>) ?? []).filter(
    (t) => t.key !== UNSCHEDULABLE_TAINT.key,
  );
  if (unschedulable) {
    spec.unschedulable = true;
    taints.push({ ...UNSCHEDULABLE_TAINT, timeAdded: timestamp(now) } as { key: string });
  } else {
    delete spec.unschedulable;
  }
  if (taints.length > 0) spec.taints = taints;
  else delete spec.taints;
  node.spec = spec;
}

/** The annotation the machine-api read before the cluster autoscaler's provider took DELETE_MACHINE_ANNOTATION. */
const OLD_DELETE_MACHINE_ANNOTATION = "machine.openshift.io/cluster-api-delete-machine";
const SECONDS_PER_HUNDRED_DAYS = 8_640_000;
const MUST_DELETE = 100;

/** Marked for deletion, or failed: first on a scale down whatever the policy. */
function mustGo(machine: KubeObject): boolean {
  const annotations = machine.metadata.annotations ?? {};
  return (
    !!annotations[DELETE_MACHINE_ANNOTATION] ||
    !!annotations[OLD_DELETE_MACHINE_ANNOTATION] ||
    !!field(machine, "status", "errorReason") ||
    !!field(machine, "status", "errorMessage")
  );
}

/** Older machines nearer 50, as `oldestDeletePriority` maps a machine's age. */
function agePriority(machine: KubeObject, now: Date): number {
  const created = Date.parse(machine.metadata.creationTimestamp ?? "");
  const seconds = (now.getTime() - created) / 1000;
  if (Number.isNaN(seconds) || seconds < 0) return 0;
  return 50 * (1 - Math.exp(-seconds / SECONDS_PER_HUNDRED_DAYS));
}

/**
 * Which machines a scale down deletes first, per `spec.deletePolicy` (machine-api-operator,
 * pkg/controller/machineset/delete_policy.go, `getDeletePriorityFunc`): Random (the default) takes
 * marked or failed machines, then those without a node, then any; Oldest and Newest take marked or
 * failed machines, then by age. undefined for a policy the controller does not know, which deletes
 * nothing.
 */
function deletePriority(policy: unknown, now: Date): ((machine: KubeObject) => number) | undefined {
  if (policy === undefined || policy === "" || policy === "Random")
    return (m) => (mustGo(m) ? 50 : !field(m, "status", "nodeRef") ? 40 : 20);
  if (policy === "Oldest") return (m) => (mustGo(m) ? MUST_DELETE : agePriority(m, now));
  if (policy === "Newest") return (m) => MUST_DELETE - (mustGo(m) ? 0 : agePriority(m, now));
  return undefined;
}

/** What the cluster's actuator refuses before creating an instance. */
function providerSpecProblem(machine: KubeObject, platform: PlatformSpec): string | undefined {
  const spec = providerSpecOf(machine);
  if (spec.kind !== platform.providerKind) {
    return `failed to get machine provider config: providerSpec kind ${JSON.stringify(spec.kind ?? "")} is not ${platform.providerKind}, the only kind the ${platform.type} actuator reads`;
  }
  if (spec.kind === "AzureMachineProviderSpec") {
    // Windows computer names are NetBIOS names: the VM is named after the Machine, hence the 9
    // characters a Windows MachineSet name may have on Azure.
    if (isWindowsMachine(machine) && machine.metadata.name.length > 15) {
      return `failed to create machine: InvalidParameter: Windows computer name ${JSON.stringify(machine.metadata.name)} cannot be more than 15 characters long`;
    }
    const image = obj(spec.image);
    if (!image.resourceID && !(image.publisher && image.offer && image.sku)) {
      return "failed to create machine: image: either resourceID or publisher/offer/sku/version must be set";
    }
  } else if (!field(spec, "ami", "id") && !field(spec, "ami", "filters")) {
    return "failed to create machine: AMI ID or filters must be set in providerSpec";
  }
  // A zone or a size the cloud lacks: its API's answer, as the actuator wraps it (cluster/cloud-api.ts).
  return platform.launchProblem(machine.metadata.name, spec);
}

export function startMachineApi(ctx: ControllerContext): StopFn {
  const { store, clock, delays } = ctx;
  // The processes of machine-api-operator's controllers pod, each writing under its binary's name.
  const machineSets = ctx.writer("machineset-controller");
  const machineController = ctx.writer("machine-controller-manager");
  const nodelink = ctx.writer("nodelink-controller");
  const kubelet = ctx.writer("kubelet");
  const queue = new WorkQueue("machine-api", clock, (key) => {
    const [kind, namespace, name] = key.split("/");
    if (kind === "ms") syncMachineSet(namespace, name);
    else syncMachine(namespace, name);
  });
  const steps = new Stepper(queue, clock);
  /** Names handed out this run, so a deleted machine's name is not reused while its node drains. */
  const issued = new Set<string>();
  const infraId = () =>
    field<string>(store.get(keyOf(K.infrastructure, "cluster")), "status", "infrastructureName") ?? "cluster";

  const machines = (namespace: string) => store.list(K.machine.apiVersion, K.machine.kind, { namespace });
  const nodeByProviderId = (providerID: string | undefined) =>
    providerID
      ? store.list("v1", "Node").find((n) => field(n, "spec", "providerID") === providerID)
      : undefined;

  function enqueueOwners(machine: KubeObject): void {
    for (const ref of machine.metadata.ownerReferences ?? []) {
      if (ref.kind === "MachineSet") queue.add(`ms/${machine.metadata.namespace}/${ref.name}`);
    }
  }

  function syncMachineSet(namespace: string, name: string): void {
    const ms = store.get(keyOf(K.machineSet, name, namespace));
    if (!ms || ms.metadata.deletionTimestamp) return;
    const selector = field<LabelSelector>(ms, "spec", "selector") ?? {};
    const templateLabels = field<Record<string, string>>(ms, "spec", "template", "metadata", "labels") ?? {};
    if (!selectorMatches(selector, templateLabels)) {
      machineSets.mutate(
        keyOf(K.machineSet, name, namespace),
        (o) => {
          o.status = {
            ...obj(o.status),
            errorReason: "InvalidConfiguration",
            errorMessage: `failed validation on MachineSet ${JSON.stringify(name)} label selector, cannot match any machines`,
            observedGeneration: o.metadata.generation,
          };
        },
        { subresource: "status" },
      );
      return;
    }
    let owned: KubeObject[] = [];
    for (const m of machines(namespace)) {
      if (m.metadata.deletionTimestamp || !selectorMatches(selector, labelsOf(m))) continue;
      const hasController = (m.metadata.ownerReferences ?? []).some((r) => r.controller);
      if (hasController && !isControlledBy(m, ms)) continue;
      if (!hasController) {
        // Adopt orphans whose labels match, as the ReplicaSet pattern does.
        machineSets.mutate(keyOf(K.machine, m.metadata.name, namespace), (o) => {
          o.metadata.ownerReferences = [...(o.metadata.ownerReferences ?? []), controllerRef(ms)];
        });
      }
      owned.push(m);
    }
    const want = field<number>(ms, "spec", "replicas") ?? 1;
    const priority = deletePriority(field(ms, "spec", "deletePolicy"), clock.now());
    if (owned.length < want) {
      const template = obj(field(ms, "spec", "template"));
      for (let i = owned.length; i < want; i++) {
        const machineName = uniqueName(
          `${name}-`,
          name,
          (n) =>
            issued.has(n) || !!store.get(keyOf(K.machine, n, namespace)) || !!store.get(keyOf(K.node, n)),
        );
        issued.add(machineName);
        const created = machineSets.create({
          apiVersion: K.machine.apiVersion,
          kind: K.machine.kind,
          metadata: {
            name: machineName,
            namespace,
            labels: { ...(field<Record<string, string>>(template, "metadata", "labels") ?? {}) },
            ...(field(template, "metadata", "annotations")
              ? {
                  annotations: {
                    ...(field<Record<string, string>>(template, "metadata", "annotations") ?? {}),
                  },
                }
              : {}),
            ownerReferences: [controllerRef(ms)],
          },
          spec: structuredClone(obj(template.spec)),
        });
        owned.push(created);
      }
    } else if (owned.length > want && priority) {
      const victims = [...owned]
        .sort((a, b) => priority(b) - priority(a) || (a.metadata.name < b.metadata.name ? 1 : -1))
        .slice(0, owned.length - want);
      for (const v of victims) machineSets.delete(keyOf(K.machine, v.metadata.name, namespace));
      owned = owned.filter((m) => !victims.includes(m));
    }
    let fullyLabeled = 0;
    let ready = 0;
    for (const m of owned) {
      if (selectorMatches({ matchLabels: templateLabels }, labelsOf(m))) fullyLabeled++;
      const nodeName = field<string>(m, "status", "nodeRef", "name");
      if (nodeName && nodeReady(store.get(keyOf(K.node, nodeName)))) ready++;
    }
    machineSets.mutate(
      keyOf(K.machineSet, name, namespace),
      (o) => {
        const status = obj(o.status);
        delete status.errorReason;
        delete status.errorMessage;
        o.status = {
          ...status,
          replicas: owned.length,
          fullyLabeledReplicas: fullyLabeled,
          readyReplicas: ready,
          availableReplicas: ready,
          labelSelector: selectorString(selector),
          observedGeneration: o.metadata.generation,
        };
      },
      { subresource: "status" },
    );
  }

  function setStatus(key: ReturnType<typeof keyOf>, change: (status: Json) => void): void {
    machineController.mutate(
      key,
      (o) => {
        const status = obj(o.status);
        change(status);
        status.lastUpdated = timestamp(clock.now());
        o.status = status;
      },
      { subresource: "status" },
    );
  }

  function syncMachine(namespace: string, name: string): void {
    const key = keyOf(K.machine, name, namespace);
    const machine = store.get(key);
    if (!machine) return;
    const qkey = `m/${namespace}/${name}`;
    if (machine.metadata.deletionTimestamp) return deleteMachine(machine, qkey);
    if (!(machine.metadata.finalizers ?? []).includes(MACHINE_FINALIZER)) {
      machineController.mutate(key, (o) => {
        o.metadata.finalizers = [...(o.metadata.finalizers ?? []), MACHINE_FINALIZER];
      });
      return;
    }
    const phase = field<string>(machine, "status", "phase");
    if (!phase) {
      setStatus(key, (s) => (s.phase = "Provisioning"));
      return;
    }
    if (phase === "Provisioning") {
      if (!steps.ready(qkey, "provision", delays.provision)) return;
      const problem = providerSpecProblem(machine, PLATFORMS[ctx.platform]);
      if (problem) {
        setStatus(key, (s) => {
          s.phase = "Failed";
          s.errorReason = "InvalidConfiguration";
          s.errorMessage = problem;
        });
        return;
      }
      const provisioned = structuredClone(machine);
      const ipTaken = (ip: string) =>
        store
          .list("v1", "Node")
          .some((n) =>
            (field<Array<{ address: string }>>(n, "status", "addresses") ?? []).some((a) => a.address === ip),
          ) ||
        machines(namespace).some((m) =>
          (field<Array<{ address: string }>>(m, "status", "addresses") ?? []).some((a) => a.address === ip),
        );
      provisionMachine(provisioned, infraId(), ipTaken, clock.now());
      machineController.mutate(key, (o) => {
        o.metadata.labels = provisioned.metadata.labels;
        o.metadata.annotations = provisioned.metadata.annotations;
        o.spec = provisioned.spec;
      });
      setStatus(key, (s) => {
        Object.assign(s, obj(provisioned.status));
        s.phase = "Provisioned";
      });
      return;
    }
    if (phase === "Provisioned" || phase === "Running") {
      const node = nodeByProviderId(field<string>(machine, "spec", "providerID"));
      if (node) {
        if (!node.metadata.deletionTimestamp) link(node, machine);
        if (phase !== "Running" || field(machine, "status", "nodeRef", "uid") !== node.metadata.uid) {
          machineController.mutate(key, (o) => linkNode(o, node, clock.now()), { subresource: "status" });
        }
        return;
      }
      const ownerSet = (machine.metadata.ownerReferences ?? []).find((r) => r.kind === "MachineSet")?.name;
      if (ctx.machineFaults.bootHeld(ownerSet)) return;
      if (phase === "Provisioned" && !isWindowsMachine(machine) && steps.ready(qkey, "boot", delays.boot)) {
        kubelet.create(buildNode(machine, { os: "linux" }, clock.now()));
      }
    }
  }

  /**
   * The nodelink controller's write on a Machine's Node (ReconcileNodeLink.Reconcile): the machine
   * annotation, the Machine's node labels and the taints the Node lacks (`copyMachineMetadata`), in one
   * update when anything differs. It runs again whenever the Machine or the Node changes (the
   * subscription below), so a label or taint edited on a running Machine reaches its Node.
   */
  function link(node: KubeObject, machine: KubeObject): void {
    const linked = structuredClone(node);
    const owner = `${machine.metadata.namespace}/${machine.metadata.name}`;
    const annotated = linked.metadata.annotations?.[NODE_MACHINE_ANNOTATION] !== owner;
    linked.metadata.annotations = {
      ...(linked.metadata.annotations ?? {}),
      [NODE_MACHINE_ANNOTATION]: owner,
    };
    if (!copyMachineMetadata(linked, machine) && !annotated) return;
    nodelink.mutate(keyOf(K.node, node.metadata.name), (n) => {
      n.metadata.annotations = linked.metadata.annotations;
      n.metadata.labels = linked.metadata.labels;
      n.spec = { ...obj(n.spec), ...(linked.spec as Json) };
    });
  }

  function deleteMachine(machine: KubeObject, qkey: string): void {
    const key = keyOf(K.machine, machine.metadata.name, machine.metadata.namespace);
    if (field(machine, "status", "phase") !== "Deleting") {
      setStatus(key, (s) => (s.phase = "Deleting"));
    }
    const nodeName = field<string>(machine, "status", "nodeRef", "name");
    const node = nodeName ? store.get(keyOf(K.node, nodeName)) : undefined;
    if (node) {
      // Drain: cordon first, let the pods go, only then remove the node and the instance.
      if (field(node, "spec", "unschedulable") !== true) {
        machineController.mutate(keyOf(K.node, node.metadata.name), (n) => cordon(n, true, clock.now()));
        return;
      }
      if (!steps.ready(qkey, "drain", delays.drain)) return;
      machineController.delete(keyOf(K.node, node.metadata.name));
    }
    steps.forget(qkey);
    machineController.mutate(key, (o) => {
      o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== MACHINE_FINALIZER);
    });
  }

  const unsubscribe = store.subscribe(({ object }) => {
    if (isKind(object, K.machineSet)) {
      queue.add(`ms/${object.metadata.namespace}/${object.metadata.name}`);
    } else if (isKind(object, K.machine)) {
      queue.add(`m/${object.metadata.namespace}/${object.metadata.name}`);
      enqueueOwners(object);
    } else if (isKind(object, K.node)) {
      const providerID = field<string>(object, "spec", "providerID");
      for (const m of machines(MACHINE_API_NAMESPACE)) {
        const linked = field(m, "status", "nodeRef", "name") === object.metadata.name;
        if (linked || (providerID && field(m, "spec", "providerID") === providerID)) {
          queue.add(`m/${m.metadata.namespace}/${m.metadata.name}`);
          enqueueOwners(m);
        }
      }
    }
  });
  const stopBootFaults = ctx.machineFaults.onBootReleased((set) => {
    for (const m of machines(MACHINE_API_NAMESPACE)) {
      if ((m.metadata.ownerReferences ?? []).some((r) => r.kind === "MachineSet" && r.name === set)) {
        queue.add(`m/${m.metadata.namespace}/${m.metadata.name}`);
      }
    }
  });
  for (const ms of store.list(K.machineSet.apiVersion, K.machineSet.kind)) {
    queue.add(`ms/${ms.metadata.namespace}/${ms.metadata.name}`);
  }
  for (const m of store.list(K.machine.apiVersion, K.machine.kind))
    queue.add(`m/${m.metadata.namespace}/${m.metadata.name}`);
  return () => {
    unsubscribe();
    stopBootFaults();
  };
}
