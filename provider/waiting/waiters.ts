/**
 * The waits, each a predicate on the engine: which kinds to list and watch, how the engine's view
 * becomes the predicate's observation, and how the predicate's needs become requests.
 */
import { MACHINE_API_NAMESPACE, operatorComponentLabel } from "../../primitives/openshift";
import { LabelSelector, labelSelectorQuery } from "../../primitives/selectors";
import { ApiClient, createApiClient } from "./api";
import type { Clock } from "./clock";
import { withRetry } from "./retry";
import {
  converge,
  ConvergeOptions,
  Evaluation,
  Need,
  observe,
  Outcome,
  SourceSpec,
  View,
  WaitOptions,
} from "./converge";
import { Condition, conditionOf, field, KINDS, kindOfCrd, KubeObject, labelsOf, ResourceKind } from "./kinds";
import {
  MachineSetResult,
  MachineSetTarget,
  evaluateMachineSetsDeleted,
  evaluateMachineSetsReady,
  machinesSelector,
  nodeByName,
  nodeNames,
  NodeQuery,
  nodeQueries,
} from "./machineset";
import { DELETE_MACHINE_ANNOTATION, MachineReplacement, ReplacementStep } from "./replacement";
import { evaluateNodeMetadata, NodeMetadataResult, NodeMetadataTarget, ObjectPatch } from "./node-metadata";
import type { Taint } from "../../builders/validation";
import {
  evaluateOperatorInstall,
  OperatorReads,
  OperatorResult,
  OperatorTarget,
  ownedCrds,
} from "./operator";
import { podKey } from "./drain";
import { recordSightings, Sightings } from "./persistence";
import { evaluateExtensionInstall, ExtensionResult } from "./extension";
import {
  evaluatePoolRollout,
  generatedKey,
  Inherited,
  noteInherited,
  PoolRolloutResult,
  PoolRolloutTarget,
  reportsDegradedNodes,
} from "./pool";
import {
  MACHINE_CONFIG_NODES_BY_NAME_UP_TO,
  machineConfigNodeSources,
  machineConfigNodesOf,
  meanNodeTimings,
  NodeTimings,
  observedNodeTimings,
  poolOfMachineConfigNode,
} from "./machineconfignode";
import {
  evaluateWindowsNodes,
  nodeServes,
  PRIVATE_KEY_SECRET,
  WindowsResult,
  WindowsTarget,
  WMCO_NAMESPACE,
} from "./windows";

export { MACHINE_API_NAMESPACE };

export interface ClusterAccess {
  /** Kubeconfig YAML; ignored when `client` is given. */
  kubeconfig?: string;
  /** A client to reuse, e.g. one that counts requests. */
  client?: ApiClient;
}

/** The client of `access`; one made from its kubeconfig pauses between a request's tries on the wait's clock. */
export function clientOf(access: ClusterAccess & { clock?: Clock }): ApiClient {
  if (access.client) return access.client;
  if (!access.kubeconfig) throw new Error("a kubeconfig (or a client) is required to reach the cluster");
  return createApiClient(access.kubeconfig, { clock: access.clock });
}

// ---- pool rollout ----

export interface PoolRolloutOptions extends WaitOptions, ClusterAccess, PoolRolloutTarget {}

/** The reads whose key starts with `prefix`, keyed by the rest (`mc/<name>` by `<name>`). */
function fetchedUnder(view: View, prefix: string): Record<string, KubeObject | null | undefined> {
  const under = Object.entries(view.fetched).filter(([key]) => key.startsWith(prefix));
  return Object.fromEntries(under.map(([key, object]) => [key.slice(prefix.length), object]));
}

/** The sources of the PodDisruptionBudgets of a namespace: `PodDisruptionBudgets/<namespace>`. */
const BUDGETS = "PodDisruptionBudgets/";

function podDisruptionBudgetsOf(view: View): Record<string, KubeObject[] | undefined> {
  const listed = Object.entries(view.sources).filter(([key]) => key.startsWith(BUDGETS));
  return Object.fromEntries(
    listed.map(([key, objects]) => [key.slice(BUDGETS.length), objects ?? undefined]),
  );
}

function poolRollout(
  options: PoolRolloutOptions,
  machineConfigNodesByNameUpTo = MACHINE_CONFIG_NODES_BY_NAME_UP_TO,
): ConvergeOptions<PoolRolloutResult> {
  const { pool: name, machineConfigs, deletedMachineConfigs } = options;
  const { kubeletConfigs = [], containerRuntimeConfigs = [] } = options;
  const target: PoolRolloutTarget = {
    pool: name,
    machineConfigs,
    deletedMachineConfigs,
    kubeletConfigs,
    containerRuntimeConfigs,
  };
  // The pool, and the KubeletConfigs and ContainerRuntimeConfigs awaited, each by name.
  const sources: SourceSpec[] = [
    { name: "pool", resource: KINDS.pool, fieldSelector: `metadata.name=${name}` },
    ...byName(KINDS.kubeletConfig, undefined, kubeletConfigs),
    ...byName(KINDS.containerRuntimeConfig, undefined, containerRuntimeConfigs),
  ];
  const initial: { seen?: boolean; renderDegraded?: Condition } = {};
  // Each node's steps as last seen in this rollout: its conditions are reset once it is updated.
  const timings: Record<string, NodeTimings> = {};
  const timed = new WeakSet<KubeObject>();
  const since: Sightings = {};
  const inherited: Inherited = {};
  // Once the pool has had more nodes than are read by name, all MachineConfigNodes are read for the rest
  // of the wait, however the pool changes: a pool about the cutoff does not switch back and forth (the
  // few watches by name opened before stay open until the wait ends).
  const machineConfigNodes = { all: false };

  return {
    ...options,
    client: clientOf(options),
    waiter: `pool ${name}`,
    sources,
    evaluate(view) {
      const pool = view.sources.pool?.[0];
      if (pool && !initial.seen) {
        initial.seen = true;
        initial.renderDegraded = conditionOf(pool, "RenderDegraded");
      }
      // The API server returns only the pool's nodes; a pool whose selector selects nothing (none, or
      // one the MCO cannot convert) manages no node, and nothing is listed for it.
      const nodeQuery = labelSelectorQuery(field<LabelSelector>(pool, "spec", "nodeSelector"));
      const nodes = view.sources.nodes ?? undefined;
      const mcns = machineConfigNodesOf(view, nodes);
      noteInherited(inherited, pool, nodes, mcns);
      const { problems, recheckMs, ...evaluation } = evaluatePoolRollout(target, {
        pool,
        machineConfigs: fetchedUnder(view, "mc/"),
        rendered: fetchedUnder(view, "rendered/"),
        kubeletConfigs: listedByName(view, KINDS.kubeletConfig, kubeletConfigs),
        containerRuntimeConfigs: listedByName(view, KINDS.containerRuntimeConfig, containerRuntimeConfigs),
        generated: fetchedUnder(view, "generated/"),
        nodes,
        machineConfigNodes: mcns,
        pods: fetchedUnder(view, "pod/"),
        podDisruptionBudgets: podDisruptionBudgetsOf(view),
        initialRenderDegraded: initial.renderDegraded,
        inherited,
        since,
        nowMs: view.elapsedMs,
      });
      recordSightings(since, problems ?? [], view.elapsedMs);
      for (const mcn of mcns ?? []) {
        // Each object once: the view hands the same object until an event replaces it.
        if (timed.has(mcn)) continue;
        timed.add(mcn);
        const seen = observedNodeTimings(mcn);
        if (poolOfMachineConfigNode(mcn) === name && Object.keys(seen).length > 0)
          timings[mcn.metadata.name] = seen;
      }
      const learnedTimings = meanNodeTimings(Object.values(timings));
      if (evaluation.result && learnedTimings) evaluation.result = { ...evaluation.result, learnedTimings };
      const needs: Need[] = [];
      for (const name of evaluation.needs.machineConfigs ?? []) {
        needs.push({ type: "get", key: `mc/${name}`, resource: KINDS.machineConfig, name });
      }
      if (evaluation.needs.rendered) {
        const name = evaluation.needs.rendered;
        needs.push({ type: "get", key: `rendered/${name}`, resource: KINDS.machineConfig, name });
      }
      for (const g of evaluation.needs.generated ?? []) {
        needs.push({
          type: "get",
          key: `generated/${generatedKey(g)}`,
          resource: KINDS.machineConfig,
          name: g.machineConfig,
        });
      }
      // Listed as soon as the pool reports degraded nodes, before its render is the target even, so
      // that a failure is seen before the daemon takes up the target (`noteInherited`), and for their
      // MachineConfigNodes; asked again while listed, so that they follow an edit of the pool's nodeSelector.
      const wantsNodes =
        evaluation.needs.nodes ||
        evaluation.needs.machineConfigNodes ||
        view.sources.nodes ||
        (pool && reportsDegradedNodes(pool));
      if (wantsNodes && nodeQuery !== undefined) {
        needs.push({
          type: "source",
          source: { name: "nodes", resource: KINDS.node, labelSelector: nodeQuery },
        });
      }
      if (recheckMs !== undefined) needs.push({ type: "recheck", afterMs: recheckMs });
      for (const pod of evaluation.needs.pods ?? []) {
        const { namespace, name } = pod;
        needs.push({ type: "get", key: `pod/${podKey(pod)}`, resource: KINDS.pod, name, namespace });
        const source = { name: `${BUDGETS}${namespace}`, resource: KINDS.podDisruptionBudget, namespace };
        needs.push({ type: "source", source });
      }
      if (evaluation.needs.machineConfigNodes && nodes) {
        // Clusters before MachineConfigNodes answer their list with 404: the node annotations decide then.
        machineConfigNodes.all ||= nodes.length > machineConfigNodesByNameUpTo;
        const names = nodes.map((n) => n.metadata.name);
        for (const source of machineConfigNodeSources(names, view, machineConfigNodes.all))
          needs.push({ type: "source", source });
      }
      return { ...evaluation, needs };
    },
  };
}

/** Waits until the pool has rolled out the given MachineConfigs (see `pool.ts` for the exact rule). */
export function waitForPoolRollout(options: PoolRolloutOptions): Promise<Outcome<PoolRolloutResult>> {
  return converge(poolRollout(options));
}

/**
 * The pool wait reading MachineConfigNodes by name up to another count of nodes than the default:
 * `npm run bench:wait` sets the two ways side by side (Infinity: by name whatever the pool).
 */
export function waitForPoolRolloutReading(
  options: PoolRolloutOptions,
  machineConfigNodesByNameUpTo: number,
): Promise<Outcome<PoolRolloutResult>> {
  return converge(poolRollout(options, machineConfigNodesByNameUpTo));
}

export function observePoolRollout(options: PoolRolloutOptions): Promise<Evaluation<PoolRolloutResult>> {
  return observe(poolRollout(options));
}

/** The kinds of node configuration a pool renders, by kind. */
export const NODE_CONFIG_KINDS = {
  MachineConfig: KINDS.machineConfig,
  KubeletConfig: KINDS.kubeletConfig,
  ContainerRuntimeConfig: KINDS.containerRuntimeConfig,
} as const;

export type NodeConfigKind = keyof typeof NODE_CONFIG_KINDS;

export interface NodeConfigRemovalOptions extends WaitOptions, ClusterAccess {
  pool: string;
  kind: NodeConfigKind;
  name: string;
}

/**
 * How an object of the removed one's name that is not being deleted is described: it is not the one
 * the stack deleted, whose rollout alone the removal awaits.
 */
const holder = (object: KubeObject, kind: string) =>
  `${kind} ${object.metadata.name} (uid ${object.metadata.uid}, created ${object.metadata.creationTimestamp})`;

/**
 * Waits until the pool has rolled out a render without a deleted MachineConfig, or without the
 * MachineConfigs generated from a deleted KubeletConfig or ContainerRuntimeConfig: those that still
 * carry its owner reference (garbage collection may not have run yet) and those the render still names
 * that are gone. Pulumi deletes the object before its guard, by name, so the stack's object is the one
 * being deleted or gone; one of that name that is not being deleted, when the wait begins or appearing
 * during it, is not: only the guard went (e.g. with `wait: false`), or someone created the object anew,
 * and its render is theirs. A pool that is gone, or goes during the wait (its stack is being
 * destroyed), has nothing to roll out. Those are done at once.
 */
export async function waitForNodeConfigRemoval(
  options: NodeConfigRemovalOptions,
): Promise<Outcome<PoolRolloutResult | undefined>> {
  const client = clientOf(options);
  const resource = NODE_CONFIG_KINDS[options.kind];
  const label = `removal of ${options.kind} ${options.name} from pool ${options.pool}`;
  const object = await withRetry(() => client.get(resource, options.name), options);
  if (object && !object.metadata.deletionTimestamp) {
    const message = `${label}: ${holder(object, options.kind)} exists and is not being deleted: it was kept, or created anew by someone else; nothing of the stack's to roll out`;
    return { result: undefined, message, elapsedMs: 0, requests: 1 };
  }
  let deleted = [options.name];
  if (options.kind !== "MachineConfig") {
    const [pool, configs] = await Promise.all([
      withRetry(() => client.get(KINDS.pool, options.pool), options),
      withRetry(() => client.list(KINDS.machineConfig, {}), options),
    ]);
    const existing = new Set(configs.items.map((m) => m.metadata.name));
    const owned = configs.items
      .filter((m) =>
        m.metadata.ownerReferences?.some((o) => o.kind === options.kind && o.name === options.name),
      )
      .map((m) => m.metadata.name);
    const rendered = (field<Array<{ name: string }>>(pool, "spec", "configuration", "source") ?? []).map(
      (m) => m.name,
    );
    deleted = [...new Set([...owned, ...rendered.filter((name) => !existing.has(name))])].sort();
  }
  const rollout = poolRollout({ ...options, client, deletedMachineConfigs: deleted });
  return converge<PoolRolloutResult | undefined>({
    ...rollout,
    waiter: label,
    sources: [
      ...rollout.sources,
      { name: "removed", resource, fieldSelector: `metadata.name=${options.name}` },
    ],
    evaluate: (view) => {
      const anew = (view.sources.removed ?? []).find((o) => !o.metadata.deletionTimestamp);
      if (anew) {
        return {
          state: "done",
          message: `${label}: ${holder(anew, options.kind)} was created anew by someone else during the wait; its render is not the stack's to await`,
        };
      }
      return view.sources.pool?.length === 0
        ? { state: "done", message: `${label}: the pool is gone, nothing to roll out` }
        : rollout.evaluate(view);
    },
  });
}

// ---- MachineSets ----

export interface MachineSetOptions extends WaitOptions, ClusterAccess {
  machineSets: string[];
  /** Default `openshift-machine-api`. */
  namespace?: string;
  nodeLabels?: Record<string, string>;
  /** Replace the machines whose provider spec is not their template's (see `replacement.ts`). */
  replacement?: MachineReplacement;
}

/**
 * Each object by name, one source each: field selectors on custom resources know only `=` on the
 * name and the namespace, and the other objects of the namespace are none of the wait's business.
 */
export function byName(resource: ResourceKind, namespace: string | undefined, names: string[]): SourceSpec[] {
  return names.map((name) => ({
    name: `${resource.kind}/${name}`,
    resource,
    namespace,
    fieldSelector: `metadata.name=${name}`,
  }));
}

/** The objects `byName` found, in the order of `names`. */
export function listedByName(view: View, resource: ResourceKind, names: string[]): KubeObject[] {
  return names.flatMap((name) => view.sources[`${resource.kind}/${name}`] ?? []);
}

/**
 * Only the pool's objects are listed and watched, so that a large cluster costs a wait what a small
 * one does: the MachineSets by name and the Machines by their MachineSet label. Nodes are asked for
 * once the MachineSets are seen (`poolNodes`).
 */
function machineSetSources(target: MachineSetTarget): SourceSpec[] {
  const { namespace, machineSets } = target;
  return [
    ...byName(KINDS.machineSet, namespace, machineSets),
    { name: "machines", resource: KINDS.machine, namespace, labelSelector: machinesSelector(machineSets) },
  ];
}

/** The sources of the MachineSets' nodes (`nodeQueries`), each named by its slot. */
export function poolNodes(
  target: MachineSetTarget,
  machineSets: KubeObject[],
  names: Record<string, string[]>,
  machines: KubeObject[],
): Need[] {
  return nodeSources(nodeQueries(target, machineSets, names, machines));
}

function nodeSources(queries: NodeQuery[]): Need[] {
  return queries.map(({ slot, ...selectors }) => ({
    type: "source",
    source: { name: slot, resource: KINDS.node, ...selectors },
  }));
}

/** Whether every source `needs` asks for has been listed (the view holds only those listed). */
export function listed(view: View, needs: Need[]): boolean {
  return needs.every((n) => n.type !== "source" || view.sources[n.source.name] !== undefined);
}

/** The nodes of every node source listed (`poolNodes`' slots), each once. */
export function listedNodes(view: View): KubeObject[] {
  const nodes = new Map<string, KubeObject>();
  for (const [slot, objects] of Object.entries(view.sources)) {
    if (/^nodes?\//.test(slot)) for (const n of objects ?? []) nodes.set(n.metadata.name, n);
  }
  return [...nodes.values()];
}

function machineSetTarget(options: MachineSetOptions): MachineSetTarget {
  return {
    namespace: options.namespace ?? MACHINE_API_NAMESPACE,
    machineSets: options.machineSets,
    nodeLabels: options.nodeLabels,
    replacement: options.replacement,
  };
}

/** The requests that carry out a replacement's steps through the machine-api. */
function replacementNeeds(namespace: string, steps: ReplacementStep[]): Need[] {
  return steps.map((step): Need => {
    if (step.type === "scale") {
      const patch = { spec: { replicas: step.replicas } };
      return {
        type: "patch",
        key: step.key,
        resource: KINDS.machineSet,
        name: step.machineSet,
        namespace,
        patch,
      };
    }
    if (step.type === "mark") {
      const patch = { metadata: { annotations: { [DELETE_MACHINE_ANNOTATION]: "true" } } };
      const key = `mark/${step.machine}`;
      const machine = { resource: KINDS.machine, name: step.machine, namespace };
      // A machine the health check or the autoscaler deleted meanwhile needs no mark.
      return { type: "patch", key, ...machine, patch, unlessGone: true };
    }
    return {
      type: "delete",
      key: `delete/${step.machine}`,
      resource: KINDS.machine,
      name: step.machine,
      namespace,
    };
  });
}

function machineSetsReady(options: MachineSetOptions): ConvergeOptions<MachineSetResult> {
  const target = machineSetTarget(options);
  return {
    ...options,
    client: clientOf(options),
    waiter: `MachineSets ${target.namespace}/${target.machineSets.join(",")}`,
    sources: machineSetSources(target),
    evaluate(view) {
      const machineSets = listedByName(view, KINDS.machineSet, target.machineSets);
      const machines = view.sources.machines ?? [];
      const { steps, ...evaluation } = evaluateMachineSetsReady(
        target,
        { machineSets, machines, nodes: listedNodes(view) },
        nodeServes,
      );
      // The nodes' labels are known once every MachineSet is: until then it is waited for anyway, and
      // a replacement decides nothing before it sees which machines are Ready.
      const seen = target.machineSets.every((name) => machineSets.some((m) => m.metadata.name === name));
      if (!seen) return { ...evaluation, needs: [] };
      const nodes = poolNodes(target, machineSets, nodeNames(target.machineSets, machines), machines);
      if (!listed(view, nodes)) return { ...evaluation, needs: nodes };
      return { ...evaluation, needs: [...nodes, ...replacementNeeds(target.namespace, steps ?? [])] };
    },
  };
}

/** Waits until every replica of the MachineSets is a Ready node carrying its Machine's node labels. */
export function waitForMachineSetsReady(options: MachineSetOptions): Promise<Outcome<MachineSetResult>> {
  return converge(machineSetsReady(options));
}

export function observeMachineSets(options: MachineSetOptions): Promise<Evaluation<MachineSetResult>> {
  return observe(machineSetsReady(options));
}

/**
 * Waits until the MachineSets, their Machines and those Machines' Nodes are all gone; MachineSets that
 * exist and are not being deleted are left alone (see `evaluateMachineSetsDeleted`).
 */
export function waitForMachineSetsDeleted(options: MachineSetOptions): Promise<Outcome<MachineSetResult>> {
  const target = machineSetTarget(options);
  const knownNodes: Record<string, string> = {};
  return converge({
    ...options,
    client: clientOf(options),
    waiter: `deletion of MachineSets ${target.namespace}/${target.machineSets.join(",")}`,
    sources: machineSetSources(target),
    evaluate(view) {
      const machines = view.sources.machines ?? [];
      for (const [set, nodes] of Object.entries(nodeNames(target.machineSets, machines)))
        for (const node of nodes) knownNodes[node] = set;
      const machineSets = listedByName(view, KINDS.machineSet, target.machineSets);
      const evaluation = evaluateMachineSetsDeleted(target, {
        machineSets,
        machines,
        nodes: listedNodes(view),
        knownNodes,
      });
      // The nodes of every Machine seen stay asked for (a source once listed is watched to the end),
      // so a node outlives its Machine in view; nothing is gone before they are listed.
      const known: Record<string, string[]> = {};
      for (const [node, set] of Object.entries(knownNodes)) (known[set] ??= []).push(node);
      const needs = poolNodes(target, machineSets, known, machines);
      if (listed(view, needs)) return { ...evaluation, needs };
      return { state: "waiting", message: `${evaluation.message} (listing nodes)`, needs };
    },
  });
}

// ---- node labels and taints ----

export interface NodeMetadataOptions extends WaitOptions, ClusterAccess {
  machineSets: string[];
  /** Default `openshift-machine-api`. */
  namespace?: string;
  /** The node labels the pool declares; none by default. */
  labels?: Record<string, string>;
  /** The taints the pool declares; none by default. */
  taints?: Taint[];
}

/** A patch `node-metadata.ts` decided, sent once per object version (see `ObjectPatch`). */
function versionedPatch(resource: ResourceKind, namespace: string | undefined, p: ObjectPatch): Need {
  const { name, key, patch } = p;
  return { type: "patch", key, resource, name, namespace, patch, unlessGone: true, unlessChanged: true };
}

function nodeMetadata(options: NodeMetadataOptions): ConvergeOptions<NodeMetadataResult> {
  const namespace = options.namespace ?? MACHINE_API_NAMESPACE;
  const target: NodeMetadataTarget = {
    namespace,
    machineSets: options.machineSets,
    labels: options.labels ?? {},
    taints: options.taints ?? [],
  };
  const sets: MachineSetTarget = { namespace, machineSets: options.machineSets };
  const waiter = `node labels and taints ${namespace}/${target.machineSets.join(",")}`;
  return {
    ...options,
    client: clientOf(options),
    waiter,
    sources: machineSetSources(sets),
    evaluate(view) {
      const machineSets = listedByName(view, KINDS.machineSet, target.machineSets);
      const machines = view.sources.machines ?? [];
      const { machinePatches, nodePatches, ...evaluation } = evaluateNodeMetadata(target, {
        machines,
        nodes: listedNodes(view),
      });
      // The nodes are listed by the labels every Machine declares, known once every MachineSet is.
      const seen = target.machineSets.every((name) => machineSets.some((m) => m.metadata.name === name));
      if (!seen) return { ...evaluation, state: "waiting", needs: [] };
      const nodes = poolNodes(sets, machineSets, nodeNames(target.machineSets, machines), machines);
      if (!listed(view, nodes)) return { ...evaluation, state: "waiting", needs: nodes };
      const patches = [
        ...machinePatches.map((p) => versionedPatch(KINDS.machine, namespace, p)),
        ...nodePatches.map((p) => versionedPatch(KINDS.node, undefined, p)),
      ];
      return { ...evaluation, needs: [...nodes, ...patches] };
    },
  };
}

/**
 * Writes a pool's node labels and taints on its running Machines (and on their Nodes what the
 * machine-api's nodelink controller does not), removes those the Machines record and the pool no
 * longer declares, and waits until every Node carries exactly that (see `node-metadata.ts`).
 */
export function waitForNodeMetadata(options: NodeMetadataOptions): Promise<Outcome<NodeMetadataResult>> {
  return converge(nodeMetadata(options));
}

export function observeNodeMetadata(options: NodeMetadataOptions): Promise<Evaluation<NodeMetadataResult>> {
  return observe(nodeMetadata(options));
}

// ---- operator ----

export interface OperatorOptions extends WaitOptions, ClusterAccess, OperatorTarget {}

function operatorInstall(options: OperatorOptions): ConvergeOptions<OperatorResult> {
  const target: OperatorTarget = {
    namespace: options.namespace,
    subscription: options.subscription,
    startingCSV: options.startingCSV,
  };
  const approved: string[] = [];
  const since: Sightings = {};
  return {
    ...options,
    client: clientOf(options),
    waiter: `operator ${target.namespace}/${target.subscription}`,
    sources: [
      {
        name: "subscription",
        resource: KINDS.subscription,
        namespace: target.namespace,
        fieldSelector: `metadata.name=${target.subscription}`,
      },
      { name: "csvs", resource: KINDS.csv, namespace: target.namespace },
    ],
    evaluate(view) {
      const subscription = view.sources.subscription?.[0];
      // InstallPlans matter only under Manual approval (an Automatic plan's failure shows as the
      // Subscription's InstallPlanFailed), so they cost a list and a watch only then.
      if (field(subscription, "spec", "installPlanApproval") === "Manual" && !view.sources.installPlans) {
        return {
          state: "waiting",
          message: `operator ${target.namespace}/${target.subscription}: reading InstallPlans`,
          needs: [
            {
              type: "source",
              source: { name: "installPlans", resource: KINDS.installPlan, namespace: target.namespace },
            },
          ],
        };
      }
      const installed = field<string>(subscription, "status", "installedCSV");
      const csv = (view.sources.csvs ?? []).find((c) => c.metadata.name === installed);
      const { problems, recheckMs, approve, reads, ...evaluation } = evaluateOperatorInstall(target, {
        subscription,
        installPlans: view.sources.installPlans ?? [],
        csvs: view.sources.csvs ?? [],
        // Until listed, none: the install is then not done, never taken as done unread.
        deployments: view.sources.deployments ?? [],
        pods: Object.entries(view.sources)
          .filter(([name]) => name.startsWith("pods/"))
          .flatMap(([, objects]) => objects ?? []),
        crds: Object.fromEntries(ownedCrds(csv).map((n) => [n, crdOf(view, n)])),
        served: ownedCrds(csv).filter((n) => servedAttempts(view, n).some((o) => o !== null)),
        since,
        nowMs: view.elapsedMs,
      });
      recordSightings(since, problems, view.elapsedMs);
      for (const key of Object.keys(view.patched)) {
        const plan = key.slice("approve/".length);
        if (!approved.includes(plan)) approved.push(plan);
      }
      const needs: Need[] = approve
        ? [
            {
              type: "patch",
              key: `approve/${approve}`,
              resource: KINDS.installPlan,
              name: approve,
              namespace: target.namespace,
              patch: { spec: { approved: true } },
            },
          ]
        : [];
      if (recheckMs !== undefined) needs.push({ type: "recheck", afterMs: recheckMs });
      if (reads) needs.push(...operatorReads(view, target.namespace, reads));
      const result = evaluation.result && {
        ...evaluation.result,
        ...(approved.length > 0 ? { approvedInstallPlan: approved.join(",") } : {}),
      };
      return { ...evaluation, result, needs };
    },
  };
}

/** A CRD read by name, undefined until listed, null when there is none. */
function crdOf(view: View, name: string): KubeObject | null | undefined {
  const listed = view.sources[`crd/${name}`];
  return listed === undefined || listed === null ? undefined : (listed[0] ?? null);
}

/** The lists of a CRD's kind asked so far, in order: null for each the API server did not serve. */
function servedAttempts(view: View, crd: string): Array<KubeObject[] | null | undefined> {
  const prefix = `served/${crd}/`;
  return Object.entries(view.sources)
    .filter(([name]) => name.startsWith(prefix))
    .sort(([a], [b]) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)))
    .map(([, objects]) => objects);
}

/** How often a kind not served yet is listed again: discovery follows an Established CRD within moments. */
const SERVED_RETRY_MS = 1000;

/**
 * What judging the installed CSV reads: its Deployments (by the owner label OLM gives them), the pods of
 * those not available, its owned CRDs (each by name, watched), and, once a CRD is Established, a list
 * of its kind that proves the API server serves it; a kind not served yet (404) is listed again, each
 * attempt a source of its own since a source not served stays so.
 */
function operatorReads(view: View, namespace: string, reads: OperatorReads): Need[] {
  const needs: Need[] = [];
  if (reads.csv)
    needs.push({
      type: "source",
      source: {
        name: "deployments",
        resource: KINDS.deployment,
        namespace,
        labelSelector: `olm.owner=${reads.csv}`,
      },
    });
  for (const deployment of reads.podsOf) {
    const labelSelector = labelSelectorQuery(field<LabelSelector>(deployment, "spec", "selector"));
    if (labelSelector)
      needs.push({
        type: "source",
        source: { name: `pods/${deployment.metadata.name}`, resource: KINDS.pod, namespace, labelSelector },
      });
  }
  for (const name of reads.crds)
    needs.push({
      type: "source",
      source: { name: `crd/${name}`, resource: KINDS.crd, fieldSelector: `metadata.name=${name}` },
    });
  // One attempt per SERVED_RETRY_MS slot of the wait, at most.
  const slot = Math.floor(view.elapsedMs / SERVED_RETRY_MS);
  for (const crd of reads.kinds) {
    if (servedAttempts(view, crd.metadata.name).some((a) => a !== null)) continue;
    const name = `served/${crd.metadata.name}/${slot}`;
    if (name in view.sources) {
      needs.push({ type: "recheck", afterMs: (slot + 1) * SERVED_RETRY_MS - view.elapsedMs });
      continue;
    }
    // No object of the kind is needed, only the answer: a name no object has.
    needs.push({
      type: "source",
      source: {
        name,
        resource: kindOfCrd(crd),
        fieldSelector: "metadata.name=served-check",
        servedOrNull: true,
      },
    });
  }
  return needs;
}

/**
 * Waits until the Subscription's installed CSV has succeeded; under Manual approval approves only the
 * Subscription's InstallPlan for the pinned startingCSV.
 */
export function waitForOperatorInstall(options: OperatorOptions): Promise<Outcome<OperatorResult>> {
  return converge(operatorInstall(options));
}

export function observeOperatorInstall(options: OperatorOptions): Promise<Evaluation<OperatorResult>> {
  return observe(operatorInstall(options));
}

export interface OperatorRemovalOptions extends WaitOptions, ClusterAccess {
  namespace: string;
  subscription: string;
  /** A CSV to remove as well, for when the Subscription is already gone and cannot say which it installed. */
  csv?: string;
  /** The operator's package; default the Subscription's `spec.name`, else the Subscription's name. */
  package?: string;
  /**
   * Also delete the CRDs the operator's CSVs own and every instance of them: instances first, while the
   * operator still runs to finish them (their finalizers), then the operator, then the CRDs. Refused,
   * before anything is deleted, when a CSV of another Subscription owns one of them.
   */
  customResources?: boolean;
}

/** A CSV that OLM copied into a target namespace of an AllNamespaces operator: not an owner of its own. */
const isCopied = (csv: KubeObject) =>
  field(csv, "status", "reason") === "Copied" || "olm.copiedFrom" in labelsOf(csv);

/**
 * The CRDs `csvs` own that no CSV of another Subscription owns, or an error naming those that another
 * owns (OLM lets CSVs of several namespaces own one CRD: deleting it would break the other operator).
 */
export function crdsToRemove(csvs: KubeObject[], all: KubeObject[]): { crds: string[]; refused: string[] } {
  const mine = new Set(csvs.map((c) => `${c.metadata.namespace}/${c.metadata.name}`));
  const crds = [...new Set(csvs.flatMap(ownedCrds))].sort();
  const refused = crds.flatMap((crd) =>
    all
      .filter((c) => !mine.has(`${c.metadata.namespace}/${c.metadata.name}`) && !isCopied(c))
      .filter((c) => ownedCrds(c).includes(crd))
      .map(
        (c) => `CRD ${crd} is owned by ClusterServiceVersion ${c.metadata.namespace}/${c.metadata.name} too`,
      ),
  );
  return { crds, refused };
}

/** Deletes every object of `kinds` (by CRD name), then waits until none is left; finalizers are the operator's. */
async function removeAll(
  options: OperatorRemovalOptions,
  client: ApiClient,
  label: string,
  sources: SourceSpec[],
  deleteNow: () => Promise<void>,
): Promise<void> {
  await deleteNow();
  await converge({
    ...options,
    client,
    waiter: label,
    sources,
    evaluate(view) {
      const left = Object.values(view.sources).flatMap((objects) => objects ?? []);
      const named = left.map(
        (o) =>
          `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}${o.metadata.finalizers?.length ? ` (finalizers ${o.metadata.finalizers.join(", ")})` : ""}`,
      );
      return left.length === 0
        ? { state: "done", message: `${label}: gone`, result: undefined }
        : { state: "waiting", message: `${label}: waiting for ${named.join(", ")} to go` };
    },
  });
}

/**
 * Uninstalls an operator as OLM wants it done: reads from the Subscription which CSVs it installed
 * (`installedCSV`, and `currentCSV` when an upgrade is under way: OLM moves these, so a name recorded
 * at install time may be stale), deletes the Subscription first (so nothing reinstalls them), then
 * those CSVs and every CSV carrying the operator's component label (OLM labels what it installs for
 * package P in namespace N with `operators.coreos.com/P.N`, which finds them when a retried destroy
 * finds the Subscription already gone), and waits until all are gone.
 */
export async function uninstallOperator(
  options: OperatorRemovalOptions,
): Promise<Outcome<{ csvs: string[]; crds: string[] }>> {
  const client = clientOf(options);
  const { namespace } = options;
  const subscription = await withRetry(
    () => client.get(KINDS.subscription, options.subscription, namespace),
    options,
  );
  const pkg = options.package ?? field<string>(subscription, "spec", "name") ?? options.subscription;
  const labelSelector = operatorComponentLabel(pkg, namespace);
  const status = (subscription?.status ?? {}) as { installedCSV?: string; currentCSV?: string };
  const labelled = await withRetry(() => client.list(KINDS.csv, { namespace, labelSelector }), options);
  const csvs = [
    ...new Set([
      status.installedCSV,
      status.currentCSV,
      options.csv,
      ...labelled.items.map((c) => c.metadata.name),
    ]),
  ]
    .filter((c): c is string => !!c)
    .sort();
  const label = `removal of operator ${namespace}/${options.subscription}`;
  let crds: KubeObject[] = [];
  if (options.customResources) {
    const read = await Promise.all(
      csvs.map((n) => withRetry(() => client.get(KINDS.csv, n, namespace), options)),
    );
    const ours = read.filter((c): c is KubeObject => !!c);
    const all = await withRetry(() => client.list(KINDS.csv, {}), options);
    const { crds: names, refused } = crdsToRemove(ours, all.items);
    if (refused.length > 0)
      throw new Error(
        `${label}: refusing to delete the operator's custom resources: ${refused.join("; ")}; delete that operator first, or leave customResources off`,
      );
    const found = await Promise.all(
      names.map((n) => withRetry(() => client.get(KINDS.crd, n, undefined), options)),
    );
    crds = found.filter((c): c is KubeObject => !!c);
    // Instances first, while the operator runs to finish them.
    await removeAll(
      options,
      client,
      `${label}: custom resources`,
      crds.map((crd) => ({ name: crd.metadata.name, resource: kindOfCrd(crd) })),
      async () => {
        for (const crd of crds) {
          const kind = kindOfCrd(crd);
          const instances = await withRetry(() => client.list(kind, {}), options);
          for (const o of instances.items)
            await withRetry(() => client.delete(kind, o.metadata.name, o.metadata.namespace), options);
        }
      },
    );
  }
  await withRetry(() => client.delete(KINDS.subscription, options.subscription, namespace), options);
  for (const csv of csvs) await withRetry(() => client.delete(KINDS.csv, csv, namespace), options);
  const operatorGone = await converge({
    ...options,
    client,
    waiter: label,
    sources: [
      {
        name: "subscription",
        resource: KINDS.subscription,
        namespace,
        fieldSelector: `metadata.name=${options.subscription}`,
      },
      { name: "csvs", resource: KINDS.csv, namespace },
    ],
    evaluate(view) {
      // Any CSV of the operator counts, also one created after the deletes above (a plan still executing).
      const left = [
        ...(view.sources.subscription ?? []).map((o) => `Subscription ${o.metadata.name}`),
        ...(view.sources.csvs ?? [])
          .filter((c) => csvs.includes(c.metadata.name) || labelSelector in labelsOf(c))
          .map((o) => `ClusterServiceVersion ${o.metadata.name}`),
      ];
      return left.length === 0
        ? {
            state: "done",
            message: `${label}: gone`,
            result: { csvs, crds: crds.map((c) => c.metadata.name) },
          }
        : { state: "waiting", message: `${label}: waiting for ${left.join(", ")} to go` };
    },
  });
  // Then the CRDs, each kept until its objects are gone (the API server's cleanup finalizer).
  if (crds.length > 0)
    await removeAll(
      options,
      client,
      `${label}: CRDs`,
      crds.map((crd) => ({
        name: crd.metadata.name,
        resource: KINDS.crd,
        fieldSelector: `metadata.name=${crd.metadata.name}`,
      })),
      async () => {
        for (const crd of crds)
          await withRetry(() => client.delete(KINDS.crd, crd.metadata.name, undefined), options);
      },
    );
  return operatorGone;
}

// ---- OLM v1 ----

export interface ExtensionOptions extends WaitOptions, ClusterAccess {
  /** The ClusterExtension's name. */
  extension: string;
}

function extensionInstall(options: ExtensionOptions): ConvergeOptions<ExtensionResult> {
  const since: Sightings = {};
  return {
    ...options,
    client: clientOf(options),
    waiter: `ClusterExtension ${options.extension}`,
    sources: [
      {
        name: "extension",
        resource: KINDS.clusterExtension,
        fieldSelector: `metadata.name=${options.extension}`,
      },
    ],
    evaluate(view) {
      const { problems, recheckMs, ...evaluation } = evaluateExtensionInstall(
        options.extension,
        view.sources.extension?.[0],
        since,
        view.elapsedMs,
      );
      recordSightings(since, problems, view.elapsedMs);
      return {
        ...evaluation,
        needs: recheckMs === undefined ? [] : [{ type: "recheck", afterMs: recheckMs }],
      };
    },
  };
}

/** Waits until operator-controller reports the ClusterExtension installed; fails on what it stops or keeps retrying. */
export function waitForExtensionInstall(options: ExtensionOptions): Promise<Outcome<ExtensionResult>> {
  return converge(extensionInstall(options));
}

export function observeExtensionInstall(options: ExtensionOptions): Promise<Evaluation<ExtensionResult>> {
  return observe(extensionInstall(options));
}

/**
 * Uninstalls a ClusterExtension: deletes it and waits until it is gone, which operator-controller allows
 * once it has removed what the extension installed (its finalizers).
 */
export async function uninstallExtension(options: ExtensionOptions): Promise<Outcome<undefined>> {
  const client = clientOf(options);
  await withRetry(() => client.delete(KINDS.clusterExtension, options.extension, undefined), options);
  const label = `removal of ClusterExtension ${options.extension}`;
  return converge({
    ...options,
    client,
    waiter: label,
    sources: [
      {
        name: "extension",
        resource: KINDS.clusterExtension,
        fieldSelector: `metadata.name=${options.extension}`,
      },
    ],
    evaluate(view) {
      const left = view.sources.extension?.[0];
      return left
        ? {
            state: "waiting",
            message: `${label}: waiting for it to go (finalizers ${(left.metadata.finalizers ?? []).join(", ") || "none"})`,
          }
        : { state: "done", message: `${label}: gone`, result: undefined };
    },
  });
}

// ---- Windows nodes ----

export interface WindowsNodesOptions extends WaitOptions, ClusterAccess {
  machineSets: string[];
  namespace?: string;
  /** Default `openshift-windows-machine-config-operator`. */
  wmcoNamespace?: string;
}

function windowsNodes(options: WindowsNodesOptions): ConvergeOptions<WindowsResult> {
  const target: WindowsTarget = {
    namespace: options.namespace ?? MACHINE_API_NAMESPACE,
    machineSets: options.machineSets,
    wmcoNamespace: options.wmcoNamespace ?? WMCO_NAMESPACE,
  };
  return {
    ...options,
    client: clientOf(options),
    waiter: `Windows nodes of ${target.namespace}/${target.machineSets.join(",")}`,
    sources: [
      ...byName(KINDS.machineSet, target.namespace, target.machineSets),
      {
        name: "machines",
        resource: KINDS.machine,
        namespace: target.namespace,
        labelSelector: machinesSelector(target.machineSets),
      },
    ],
    evaluate(view) {
      const machines = view.sources.machines ?? [];
      const evaluation = evaluateWindowsNodes(target, {
        privateKeySecret: view.fetched.secret,
        machineSets: listedByName(view, KINDS.machineSet, target.machineSets),
        machines,
        nodes: listedNodes(view),
      });
      // The nodes its Machines name, each by name: a Windows MachineSet's template labels its nodes
      // as workers only (they carry nothing of their MachineSet), so a label would list every
      // worker; a node not listed yet is one not configured yet, never a false success.
      const nodes = nodeSources(
        Object.values(nodeNames(target.machineSets, machines)).flat().map(nodeByName),
      );
      const needs: Need[] = evaluation.needSecret
        ? [
            {
              type: "get",
              key: "secret",
              resource: KINDS.secret,
              name: PRIVATE_KEY_SECRET,
              namespace: target.wmcoNamespace,
              metadataOnly: true,
            },
          ]
        : [];
      return { ...evaluation, needs: [...needs, ...nodes] };
    },
  };
}

/** Waits until the Machines of the Windows MachineSets are configured Windows nodes. */
export function waitForWindowsNodes(options: WindowsNodesOptions): Promise<Outcome<WindowsResult>> {
  return converge(windowsNodes(options));
}

export function observeWindowsNodes(options: WindowsNodesOptions): Promise<Evaluation<WindowsResult>> {
  return observe(windowsNodes(options));
}
