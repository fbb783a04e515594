/**
 * When a MachineConfigPool has rolled out a set of MachineConfigs (the MCO's rendered-config handshake, README "How waiting works"):
 *
 * 1. the pool's `spec.configuration.source` names each of our MachineConfigs, those the MCO generated
 *    from our KubeletConfigs and ContainerRuntimeConfigs, and none we deleted;
 * 2. the target is `spec.configuration.name`; for a MachineConfig that was changed rather than created
 *    (and for a generated one), the source names it before and after, so the target rendered config
 *    must also carry its content;
 * 3. done when the status reports that target, Updated=True, every machine updated, none degraded, and
 *    the status observed the current generation;
 * 4. otherwise a pool that reports degraded nodes fails the wait only once the nodes confirm it
 *    (MachineConfigNodes, else the node annotations) for the target, and it persists: a node still
 *    failing an older config may be fixed by the new target, one just handed the target keeps its old
 *    state and reason until its daemon acts, and the daemon retries a failed update (persistence.ts);
 * 5. a paused pool fails the wait, since it will not roll out.
 *
 * A fresh pool says Updated=True about the OLD rendered config, which is why step 1 comes first. A
 * render failure of the MCO ends the wait with its reason before any step.
 */
import {
  CURRENT_CONFIG,
  DESIRED_CONFIG,
  DESIRED_DRAIN,
  LAST_APPLIED_DRAIN,
  MCD_REASON,
  MCD_STATE,
  ROLE_LABEL,
} from "../../primitives/openshift";
import { LabelSelector, selectorIsEmpty, selectorMatches } from "../../primitives/selectors";
import { resolveMaxUnavailable } from "../../builders/rollout-impact/impact";
import { annotationsOf, Condition, conditionOf, field, KubeObject, labelsOf } from "./kinds";
import {
  describeNodePhases,
  failingMachineConfigNodes,
  NodeTimings,
  poolOfMachineConfigNode,
} from "./machineconfignode";
import { judgePersistence, Problem, Sightings } from "./persistence";
import { WaitState } from "./progress";

export { CURRENT_CONFIG, DESIRED_CONFIG, MCD_REASON, MCD_STATE, ROLE_LABEL };
/** Set by the MCO on the second and later KubeletConfig / ContainerRuntimeConfig of a pool. */
export const MC_NAME_SUFFIX = "machineconfiguration.openshift.io/mc-name-suffix";

export interface PoolRolloutTarget {
  pool: string;
  /** MachineConfigs created or changed, whose content the pool must roll out. */
  machineConfigs?: string[];
  /** MachineConfigs deleted, which the pool must drop. */
  deletedMachineConfigs?: string[];
  /** KubeletConfigs selecting this pool; they reach it as generated MachineConfigs. */
  kubeletConfigs?: string[];
  containerRuntimeConfigs?: string[];
}

/** A generated MachineConfig as read after its source object was processed at `generation`. */
export interface GeneratedRef {
  /** `KubeletConfig` or `ContainerRuntimeConfig`. */
  owner: string;
  ownerName: string;
  machineConfig: string;
  generation: number;
}

export interface PoolObservation {
  /** undefined: the pool does not exist. */
  pool: KubeObject | undefined;
  /** Our MachineConfigs by name: undefined while unread, null when absent. */
  machineConfigs: Record<string, KubeObject | null | undefined>;
  /** Rendered MachineConfigs by name: undefined while unread, null when absent. */
  rendered: Record<string, KubeObject | null | undefined>;
  kubeletConfigs: KubeObject[];
  containerRuntimeConfigs: KubeObject[];
  /** Generated MachineConfigs by `generatedKey`: undefined while unread, null when absent. */
  generated: Record<string, KubeObject | null | undefined>;
  /** The pool's nodes, once asked for (only when the pool reports degraded nodes). */
  nodes: KubeObject[] | undefined;
  /**
   * The cluster's MachineConfigNodes once asked for (while the pool rolls out): undefined while
   * unknown, null on a cluster that does not serve them (the node annotations are used instead).
   */
  machineConfigNodes?: KubeObject[] | null;
  /** The pool's RenderDegraded condition when this wait first saw the pool. */
  initialRenderDegraded: Condition | undefined;
  /** When this wait began to see each degraded node (see persistence.ts); none seen before when absent. */
  since?: Sightings;
  /** Now, on the clock of `since`. */
  nowMs?: number;
}

export interface PoolNeeds {
  machineConfigs?: string[];
  rendered?: string;
  generated?: GeneratedRef[];
  nodes?: boolean;
  machineConfigNodes?: boolean;
}

export interface PoolRolloutResult {
  pool: string;
  renderedConfig: string;
  machineCount: number;
  updatedMachineCount: number;
  readyMachineCount: number;
  degradedMachineCount: number;
  /** Per-node drain and reboot seconds seen during this rollout (MachineConfigNodes), when any. */
  learnedTimings?: NodeTimings;
}

export interface PoolEvaluation {
  state: WaitState;
  message: string;
  done?: number;
  total?: number;
  result?: PoolRolloutResult;
  needs: PoolNeeds;
  /** Degraded nodes seen now: the waiter records them to judge their persistence. */
  problems?: Problem[];
  /** Evaluate again after this long, when a degraded node may have persisted. */
  recheckMs?: number;
}

export function generatedKey(ref: GeneratedRef): string {
  return `${ref.machineConfig}@${ref.generation}`;
}

/** `99-<pool>-generated-kubelet[-<suffix>]`, as the MCO names what it makes of a KubeletConfig. */
export function generatedName(owner: KubeObject, pool: string, base: "kubelet" | "containerruntime"): string {
  const suffix = annotationsOf(owner)[MC_NAME_SUFFIX];
  return `99-${pool}-generated-${base}${suffix ? `-${suffix}` : ""}`;
}

interface Expected {
  files: Map<string, { source?: string; from: string }>;
  units: Map<
    string,
    {
      contents?: string;
      enabled?: boolean;
      mask?: boolean;
      dropins: Map<string, string | undefined>;
      from: string;
    }
  >;
  kernelArguments: Array<{ value: string; from: string }>;
  extensions: Array<{ value: string; from: string }>;
  sshKeys: Array<{ user: string; key: string; from: string }>;
  kernelType?: { value: string; from: string };
  fips?: string;
  osImageURL?: { value: string; from: string };
}

/** A systemd unit as Ignition's config spec writes it. */
interface IgnitionUnit {
  name: string;
  contents?: string;
  enabled?: boolean;
  mask?: boolean;
  dropins?: Array<{ name: string; contents?: string }>;
}

/** What our configs put into a render, merged as the MCO merges: worker role first, then by name; later wins. */
function expectedContent(configs: KubeObject[]): Expected {
  const order = (c: KubeObject) =>
    `${c.metadata.labels?.[ROLE_LABEL] === "worker" ? 0 : 1}/${c.metadata.name}`;
  const sorted = [...configs].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  const out: Expected = {
    files: new Map(),
    units: new Map(),
    kernelArguments: [],
    extensions: [],
    sshKeys: [],
  };
  for (const mc of sorted) {
    const from = mc.metadata.name;
    for (const f of field<Array<{ path: string; contents?: { source?: string } }>>(
      mc,
      "spec",
      "config",
      "storage",
      "files",
    ) ?? []) {
      out.files.set(f.path, { source: f.contents?.source, from });
    }
    const units = field<IgnitionUnit[]>(mc, "spec", "config", "systemd", "units") ?? [];
    for (const u of units) {
      const prev = out.units.get(u.name);
      const dropins = new Map(prev?.dropins ?? []);
      for (const d of u.dropins ?? []) dropins.set(d.name, d.contents);
      out.units.set(u.name, {
        contents: u.contents ?? prev?.contents,
        enabled: u.enabled ?? prev?.enabled,
        mask: u.mask ?? prev?.mask,
        dropins,
        from,
      });
    }
    for (const value of field<string[]>(mc, "spec", "kernelArguments") ?? [])
      out.kernelArguments.push({ value, from });
    for (const value of field<string[]>(mc, "spec", "extensions") ?? []) out.extensions.push({ value, from });
    for (const u of field<Array<{ name: string; sshAuthorizedKeys?: string[] }>>(
      mc,
      "spec",
      "config",
      "passwd",
      "users",
    ) ?? []) {
      for (const key of u.sshAuthorizedKeys ?? []) out.sshKeys.push({ user: u.name, key, from });
    }
    const kernelType = field<string>(mc, "spec", "kernelType");
    if (kernelType && kernelType !== "default") out.kernelType = { value: kernelType, from };
    if (field<boolean>(mc, "spec", "fips") === true) out.fips = from;
    const image = field<string>(mc, "spec", "osImageURL");
    if (image) out.osImageURL = { value: image, from };
  }
  return out;
}

/**
 * Why the rendered config does not (yet) carry the content of `configs`, or undefined when it does.
 * Checks what our configs set, not the whole render, so configs of others do not matter.
 */
export function missingFromRender(rendered: KubeObject, configs: KubeObject[]): string | undefined {
  const want = expectedContent(configs);
  const name = rendered.metadata.name;
  const files = new Map(
    (
      field<Array<{ path: string; contents?: { source?: string } }>>(
        rendered,
        "spec",
        "config",
        "storage",
        "files",
      ) ?? []
    ).map((f) => [f.path, f.contents?.source]),
  );
  for (const [path, f] of want.files) {
    if (!files.has(path) || files.get(path) !== f.source) return `${name} lacks file ${path} of ${f.from}`;
  }
  const units = new Map(
    (field<IgnitionUnit[]>(rendered, "spec", "config", "systemd", "units") ?? []).map((u) => [u.name, u]),
  );
  for (const [unitName, u] of want.units) {
    const got = units.get(unitName);
    const differs =
      !got ||
      (u.contents !== undefined && got.contents !== u.contents) ||
      (u.enabled !== undefined && got.enabled !== u.enabled) ||
      (u.mask !== undefined && got.mask !== u.mask) ||
      [...u.dropins].some(
        ([d, contents]) => (got.dropins ?? []).find((x) => x.name === d)?.contents !== contents,
      );
    if (differs) return `${name} lacks systemd unit ${unitName} of ${u.from}`;
  }
  const kargs = field<string[]>(rendered, "spec", "kernelArguments") ?? [];
  for (const k of want.kernelArguments) {
    if (!kargs.includes(k.value)) return `${name} lacks kernel argument ${k.value} of ${k.from}`;
  }
  const extensions = field<string[]>(rendered, "spec", "extensions") ?? [];
  for (const e of want.extensions) {
    if (!extensions.includes(e.value)) return `${name} lacks extension ${e.value} of ${e.from}`;
  }
  const users =
    field<Array<{ name: string; sshAuthorizedKeys?: string[] }>>(
      rendered,
      "spec",
      "config",
      "passwd",
      "users",
    ) ?? [];
  for (const k of want.sshKeys) {
    if (!(users.find((u) => u.name === k.user)?.sshAuthorizedKeys ?? []).includes(k.key)) {
      return `${name} lacks an SSH key of user ${k.user} from ${k.from}`;
    }
  }
  if (want.kernelType && field(rendered, "spec", "kernelType") !== want.kernelType.value) {
    return `${name} lacks kernelType ${want.kernelType.value} of ${want.kernelType.from}`;
  }
  if (want.fips && field(rendered, "spec", "fips") !== true) return `${name} lacks fips of ${want.fips}`;
  if (want.osImageURL && field(rendered, "spec", "osImageURL") !== want.osImageURL.value) {
    return `${name} lacks the osImageURL of ${want.osImageURL.from}`;
  }
  return undefined;
}

/** The MCO appends Success or Failure on each sync of a KubeletConfig or ContainerRuntimeConfig: the last one counts. */
function lastOutcome(object: KubeObject): Condition | undefined {
  const conditions = (field<Condition[]>(object, "status", "conditions") ?? []).filter(
    (c) => c.type === "Success" || c.type === "Failure",
  );
  return conditions[conditions.length - 1];
}

/**
 * Nodes of the pool degraded while handed `target` (their desiredConfig), with the daemon's state and
 * reason. A node still failing an older desired config is not among them: the MCO may hand it the new
 * target. The key changes with anything the daemon does to the node (state, reason, current config,
 * drain, readiness), so a failure persists only while the daemon makes no progress: a node handed the
 * target keeps its old Degraded state and reason while it updates (update.go `update` sets Working only
 * over a state that is not Degraded or Unreconcilable), and the daemon retries a failed update with a
 * backoff of up to a minute (daemon.go handleErr), which changes nothing while it keeps failing.
 */
export function failingNodes(pool: KubeObject, nodes: KubeObject[], target: string): Problem[] {
  // As the MCO's GetPoolsForNode: a pool without a node selector manages no node.
  const selector = field<LabelSelector>(pool, "spec", "nodeSelector");
  return nodes
    .filter((n) => !selectorIsEmpty(selector) && selectorMatches(selector, labelsOf(n)))
    .filter((n) => {
      const a = annotationsOf(n);
      return (
        (a[MCD_STATE] === "Degraded" || a[MCD_STATE] === "Unreconcilable") && a[DESIRED_CONFIG] === target
      );
    })
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))
    .map((n) => {
      const a = annotationsOf(n);
      const ready = conditionOf(n, "Ready")?.status;
      const acted = [
        a[MCD_STATE],
        a[MCD_REASON],
        a[CURRENT_CONFIG],
        a[DESIRED_DRAIN],
        a[LAST_APPLIED_DRAIN],
        ready,
      ];
      return {
        key: `node/${n.metadata.name}@${target}:${JSON.stringify(acted)}`,
        message: `node ${n.metadata.name} (${a[MCD_STATE]}): ${a[MCD_REASON] || "no reason given"}`,
      };
    });
}

interface Owners {
  kind: string;
  names: string[];
  objects: KubeObject[];
  base: "kubelet" | "containerruntime";
}

function ownersOf(target: PoolRolloutTarget, obs: PoolObservation): Owners[] {
  return [
    {
      kind: "KubeletConfig",
      names: target.kubeletConfigs ?? [],
      objects: obs.kubeletConfigs,
      base: "kubelet",
    },
    {
      kind: "ContainerRuntimeConfig",
      names: target.containerRuntimeConfigs ?? [],
      objects: obs.containerRuntimeConfigs,
      base: "containerruntime",
    },
  ];
}

/**
 * The failure the MCO reports for the current generation of one of our KubeletConfigs or
 * ContainerRuntimeConfigs, e.g. "Error: KubeletConfig x does not match any MachineConfigPools" for a
 * misspelled pool (kubelet_config_controller.go syncKubeletConfig, container_runtime_config_controller.go
 * syncContainerRuntimeConfig, through syncStatusOnly): known before the pool is, so a pool that will
 * never exist does not hold the wait to its deadline.
 */
function ownerFailure(target: PoolRolloutTarget, obs: PoolObservation): string | undefined {
  for (const owner of ownersOf(target, obs)) {
    for (const ownerName of owner.names) {
      const object = owner.objects.find((o) => o.metadata.name === ownerName);
      if (!object) continue;
      const last = lastOutcome(object);
      const generation = object.metadata.generation ?? 1;
      const observed = field<number>(object, "status", "observedGeneration");
      if (last?.type === "Failure" && last.status === "True" && observed === generation)
        return `${owner.kind} ${ownerName} failed: ${last.message ?? last.reason ?? "no reason given"}`;
    }
  }
  return undefined;
}

/**
 * Nodes degraded at rest (current == desired, not the target: a drifted file, say) when they alone use
 * up the pool's maxUnavailable: the node controller then hands no node the target
 * (node_controller.go getAllCandidateMachines: no capacity while unavailable >= maxUnavailable), so the
 * rollout cannot start until someone repairs them.
 */
export function holdingNodes(pool: KubeObject, nodes: KubeObject[], target: string): string[] {
  const selector = field<LabelSelector>(pool, "spec", "nodeSelector");
  const members = nodes.filter((n) => !selectorIsEmpty(selector) && selectorMatches(selector, labelsOf(n)));
  const atRest = members.filter((n) => {
    const a = annotationsOf(n);
    const degraded = a[MCD_STATE] === "Degraded" || a[MCD_STATE] === "Unreconcilable";
    return degraded && a[CURRENT_CONFIG] === a[DESIRED_CONFIG] && a[DESIRED_CONFIG] !== target;
  });
  let max = 1;
  try {
    max = resolveMaxUnavailable(field<number | string>(pool, "spec", "maxUnavailable"), members.length);
  } catch {
    // A value the MCO rejects too: it rolls nothing out, which the default of one describes.
  }
  if (atRest.length < max) return [];
  return atRest
    .map(
      (n) =>
        `node ${n.metadata.name} (${annotationsOf(n)[MCD_STATE]}): ${annotationsOf(n)[MCD_REASON] || "no reason given"}`,
    )
    .sort();
}

function waiting(message: string, needs: PoolNeeds = {}, done?: number, total?: number): PoolEvaluation {
  return { state: "waiting", message, needs, done, total };
}

function failed(message: string): PoolEvaluation {
  return { state: "failed", message, needs: {} };
}

export function evaluatePoolRollout(target: PoolRolloutTarget, obs: PoolObservation): PoolEvaluation {
  const name = target.pool;
  const label = `pool ${name}`;
  const pool = obs.pool;
  const failure = ownerFailure(target, obs);
  if (failure) return failed(`${label}: ${failure}`);
  if (!pool) return waiting(`${label}: the MachineConfigPool does not exist yet`);

  const renderDegraded = conditionOf(pool, "RenderDegraded");
  if (renderDegraded?.status === "True") {
    const initial = obs.initialRenderDegraded;
    // A render failure that predates this wait may be about a config our change replaces: the MCO
    // re-renders, and only a renewed failure (new transition or new message) is ours.
    const renewed =
      initial?.status !== "True" ||
      initial.lastTransitionTime !== renderDegraded.lastTransitionTime ||
      initial.message !== renderDegraded.message;
    if (renewed)
      return failed(
        `${label}: the MCO cannot render its configuration: ${renderDegraded.message ?? ""}`.trim(),
      );
  }

  // Step 1: the render names what we created and no longer names what we deleted.
  const sources = (field<Array<{ name: string }>>(pool, "spec", "configuration", "source") ?? []).map(
    (s) => s.name,
  );
  const wanted = [...(target.machineConfigs ?? [])];
  const readMachineConfigs = wanted.filter((m) => obs.machineConfigs[m] === undefined);
  if (readMachineConfigs.length > 0)
    return waiting(`${label}: reading MachineConfigs`, { machineConfigs: readMachineConfigs });
  for (const m of wanted) {
    if (obs.machineConfigs[m] === null) return waiting(`${label}: MachineConfig ${m} does not exist yet`);
  }

  const generatedRefs: GeneratedRef[] = [];
  for (const owner of ownersOf(target, obs)) {
    for (const ownerName of owner.names) {
      const object = owner.objects.find((o) => o.metadata.name === ownerName);
      if (!object) return waiting(`${label}: ${owner.kind} ${ownerName} does not exist yet`);
      const generation = object.metadata.generation ?? 1;
      // A Success of an earlier generation says nothing of this one (syncStatusOnly sets both).
      if (
        field<number>(object, "status", "observedGeneration") !== generation ||
        lastOutcome(object)?.type !== "Success"
      ) {
        return waiting(`${label}: waiting for the MCO to process ${owner.kind} ${ownerName}`);
      }
      generatedRefs.push({
        owner: owner.kind,
        ownerName,
        machineConfig: generatedName(object, name, owner.base),
        generation,
      });
    }
  }
  const unreadGenerated = generatedRefs.filter((g) => obs.generated[generatedKey(g)] === undefined);
  if (unreadGenerated.length > 0)
    return waiting(`${label}: reading generated MachineConfigs`, { generated: unreadGenerated });
  for (const g of generatedRefs) {
    if (obs.generated[generatedKey(g)] === null) {
      return waiting(
        `${label}: waiting for the MCO to generate ${g.machineConfig} from ${g.owner} ${g.ownerName}`,
      );
    }
  }

  const mustName = [...wanted, ...generatedRefs.map((g) => g.machineConfig)];
  const notYet = mustName.filter((m) => !sources.includes(m));
  const stillNamed = (target.deletedMachineConfigs ?? []).filter((m) => sources.includes(m));
  if (notYet.length > 0 || stillNamed.length > 0) {
    const parts = [
      ...(notYet.length > 0 ? [`to include ${notYet.join(", ")}`] : []),
      ...(stillNamed.length > 0 ? [`to drop ${stillNamed.join(", ")}`] : []),
    ];
    if (field<boolean>(pool, "spec", "paused") === true) {
      return failed(
        `${label} is paused: it will not roll out a new configuration until spec.paused is false`,
      );
    }
    return waiting(`${label}: waiting for the MCO to render the configuration ${parts.join(" and ")}`);
  }

  // Step 2: the target, carrying the content of configs changed in place.
  const renderedName = field<string>(pool, "spec", "configuration", "name") ?? "";
  if (renderedName === "")
    return waiting(`${label}: waiting for the MCO to render the pool's first configuration`);

  const changed = [
    ...wanted
      .map((m) => obs.machineConfigs[m] as KubeObject)
      .filter((mc) => (mc.metadata.generation ?? 1) > 1),
    ...generatedRefs.map((g) => obs.generated[generatedKey(g)] as KubeObject),
  ];
  if (changed.length > 0) {
    const rendered = obs.rendered[renderedName];
    if (rendered === undefined)
      return waiting(`${label}: reading ${renderedName}`, { rendered: renderedName });
    if (rendered === null) return waiting(`${label}: waiting for ${renderedName} to exist`);
    const missing = missingFromRender(rendered, changed);
    if (missing) return waiting(`${label}: waiting for the MCO to render the change (${missing})`);
  }

  // Step 3: done.
  const status = (pool.status ?? {}) as Record<string, unknown>;
  const machineCount = Number(status.machineCount ?? 0);
  const updated = Number(status.updatedMachineCount ?? 0);
  const ready = Number(status.readyMachineCount ?? 0);
  const degradedCount = Number(status.degradedMachineCount ?? 0);
  const result: PoolRolloutResult = {
    pool: name,
    renderedConfig: renderedName,
    machineCount,
    updatedMachineCount: updated,
    readyMachineCount: ready,
    degradedMachineCount: degradedCount,
  };
  const mcns = obs.machineConfigNodes?.filter((m) => poolOfMachineConfigNode(m) === name);
  const phases = mcns ? describeNodePhases(mcns, renderedName) : "";
  const progressLine = `${label}: ${updated}/${machineCount} updated -> ${renderedName}${phases ? `; ${phases}` : ""}`;
  // Per-node phases come from MachineConfigNodes where the cluster has them.
  const mcnNeeds: PoolNeeds = obs.machineConfigNodes === undefined ? { machineConfigNodes: true } : {};
  const isDone =
    field<string>(pool, "status", "configuration", "name") === renderedName &&
    conditionOf(pool, "Updated")?.status === "True" &&
    updated === machineCount &&
    degradedCount === 0 &&
    status.observedGeneration === pool.metadata.generation;
  if (isDone)
    return { state: "done", message: progressLine, done: updated, total: machineCount, result, needs: {} };

  // Step 4: the pool's word that nodes are degraded is confirmed on the nodes, so that a node still
  // failing an older config (which the new target may fix) does not fail this wait.
  const nodeDegraded = conditionOf(pool, "NodeDegraded")?.status === "True" || degradedCount > 0;
  if (nodeDegraded) {
    // MachineConfigNodes name the phase a node failed in: know whether the cluster has them first.
    if (obs.machineConfigNodes === undefined)
      return { ...waiting(progressLine, mcnNeeds, updated, machineCount), result };
    const byMcn = mcns && mcns.length > 0 ? failingMachineConfigNodes(mcns, renderedName) : [];
    if (byMcn.length === 0 && !obs.nodes)
      return { ...waiting(progressLine, { nodes: true }, updated, machineCount), result };
    const problems = byMcn.length > 0 ? byMcn : failingNodes(pool, obs.nodes ?? [], renderedName);
    const judged = judgePersistence(problems, obs.since ?? {}, obs.nowMs ?? 0);
    if (judged.persisted.length > 0)
      return {
        ...failed(`${label} is degraded rolling out ${renderedName}: ${judged.persisted.join("; ")}`),
        problems,
      };
    const holding = byMcn.length > 0 ? [] : holdingNodes(pool, obs.nodes ?? [], renderedName);
    if (holding.length > 0)
      return failed(
        `${label} cannot roll out ${renderedName}: degraded at rest, ${holding.join("; ")} use${holding.length === 1 ? "s" : ""} up maxUnavailable, so the MCO updates no node until they are repaired`,
      );
    if (problems.length > 0) {
      const degraded = `${progressLine}; degraded: ${judged.pending.join("; ")}`;
      return {
        ...waiting(degraded, mcnNeeds, updated, machineCount),
        result,
        problems,
        recheckMs: judged.recheckMs,
      };
    }
  }

  // Step 5: a paused pool does not roll out.
  if (field<boolean>(pool, "spec", "paused") === true) {
    return failed(
      `${label} is paused at ${updated}/${machineCount} updated: it will not roll out ${renderedName} until spec.paused is false`,
    );
  }
  return { ...waiting(progressLine, mcnNeeds, updated, machineCount), result };
}
