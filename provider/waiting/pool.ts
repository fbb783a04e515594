/**
 * When a MachineConfigPool has rolled out a set of MachineConfigs (the MCO's rendered-config handshake, docs/waiting.md):
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
 *    failing an older config may be fixed by the new target, one handed the target shows the failure
 *    it carried while its daemon applies the target (`Inherited`), and the daemon retries a failed
 *    update (persistence.ts); nodes degraded at rest that use up maxUnavailable fail it at once when
 *    only a repair can clear them (config drift), else once they persist;
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
import { byName } from "../../primitives/objects";
import { mergeOrder } from "../../primitives/render-order";
import { annotationsOf, Condition, conditionOf, field, KubeObject, labelsOf } from "./kinds";
import {
  degradedMessages,
  describeNodePhases,
  drainBlockedPods,
  failingMachineConfigNodes,
  NodeTimings,
  OnTarget,
  poolOfMachineConfigNode,
} from "./machineconfignode";
import { BlockedPod, describeBlockedPod, podKey } from "./drain";
import { judgePersistence, PERSISTENCE_MS, Problem, Sightings } from "./persistence";
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
  /** Pods that hold a node's drain, by `<namespace>/<name>`: undefined while unread, null when gone. */
  pods?: Record<string, KubeObject | null | undefined>;
  /** The PodDisruptionBudgets of the namespaces of those pods, by namespace, once read. */
  podDisruptionBudgets?: Record<string, KubeObject[] | undefined>;
  /** The pool's RenderDegraded condition when this wait first saw the pool. */
  initialRenderDegraded: Condition | undefined;
  /** The failures nodes showed before their daemon took up the target (`noteInherited`); none when absent. */
  inherited?: Inherited;
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
  /** Pods a node's drain cannot evict, to read with the budgets of their namespaces. */
  pods?: BlockedPod[];
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

interface IgnitionFile {
  path: string;
  contents?: { source?: string };
}

interface PasswdUser {
  name: string;
  sshAuthorizedKeys?: string[];
}

/** A list field, empty when absent. */
function listOf<T>(object: KubeObject, ...path: string[]): T[] {
  return field<T[]>(object, ...path) ?? [];
}

// The Ignition sections of a MachineConfig, ours or a render.
function filesOf(mc: KubeObject): IgnitionFile[] {
  return listOf<IgnitionFile>(mc, "spec", "config", "storage", "files");
}

function unitsOf(mc: KubeObject): IgnitionUnit[] {
  return listOf<IgnitionUnit>(mc, "spec", "config", "systemd", "units");
}

function usersOf(mc: KubeObject): PasswdUser[] {
  return listOf<PasswdUser>(mc, "spec", "config", "passwd", "users");
}

function keysOf(user: PasswdUser | undefined): string[] {
  return user?.sshAuthorizedKeys ?? [];
}

/** What our configs put into a render, merged in the MCO's order (primitives/render-order.ts); later wins. */
function expectedContent(configs: KubeObject[]): Expected {
  const sorted = mergeOrder(configs);
  const out: Expected = {
    files: new Map(),
    units: new Map(),
    kernelArguments: [],
    extensions: [],
    sshKeys: [],
  };
  for (const mc of sorted) {
    const from = mc.metadata.name;
    for (const f of filesOf(mc)) out.files.set(f.path, { source: f.contents?.source, from });
    for (const u of unitsOf(mc)) {
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
    for (const value of listOf<string>(mc, "spec", "kernelArguments"))
      out.kernelArguments.push({ value, from });
    for (const value of listOf<string>(mc, "spec", "extensions")) out.extensions.push({ value, from });
    for (const u of usersOf(mc)) {
      for (const key of keysOf(u)) out.sshKeys.push({ user: u.name, key, from });
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
  const files = new Map(filesOf(rendered).map((f) => [f.path, f.contents?.source]));
  for (const [path, f] of want.files) {
    if (!files.has(path) || files.get(path) !== f.source) return `${name} lacks file ${path} of ${f.from}`;
  }
  const units = new Map(unitsOf(rendered).map((u) => [u.name, u]));
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
  const kargs = listOf<string>(rendered, "spec", "kernelArguments");
  for (const k of want.kernelArguments) {
    if (!kargs.includes(k.value)) return `${name} lacks kernel argument ${k.value} of ${k.from}`;
  }
  const extensions = listOf<string>(rendered, "spec", "extensions");
  for (const e of want.extensions) {
    if (!extensions.includes(e.value)) return `${name} lacks extension ${e.value} of ${e.from}`;
  }
  const users = usersOf(rendered);
  for (const k of want.sshKeys) {
    if (!keysOf(users.find((u) => u.name === k.user)).includes(k.key)) {
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

/**
 * The outcome of the MCO's last sync of a KubeletConfig or ContainerRuntimeConfig, as Success or
 * Failure: syncStatusOnly appends a condition on each sync, so the last one counts. For a KubeletConfig
 * that is Accepted (True or False) followed by the deprecated Success or Failure copy of it
 * (kubelet_config_controller.go syncStatusOnly, legacyConditionFromAccepted), which is to go: an
 * Accepted condition last is read as its copy would say.
 */
function lastOutcome(object: KubeObject): Condition | undefined {
  const conditions = listOf<Condition>(object, "status", "conditions");
  const last = conditions[conditions.length - 1];
  if (last?.type !== "Accepted") return last;
  return { ...last, type: last.status === "True" ? "Success" : "Failure", status: "True" };
}

const isFailing = (state: string | undefined) => state === "Degraded" || state === "Unreconcilable";

/** The pool reports nodes its daemons gave up on (status.go calculateStatus counts them in degradedMachineCount). */
export function reportsDegradedNodes(pool: KubeObject): boolean {
  return (
    conditionOf(pool, "NodeDegraded")?.status === "True" ||
    Number(field(pool, "status", "degradedMachineCount") ?? 0) > 0
  );
}

/** The pool's nodes: as the MCO's GetPoolsForNode, a pool without a node selector manages none. */
function membersOf(pool: KubeObject, nodes: KubeObject[]): KubeObject[] {
  const selector = field<LabelSelector>(pool, "spec", "nodeSelector");
  return nodes.filter((n) => !selectorIsEmpty(selector) && selectorMatches(selector, labelsOf(n)));
}

/** The failure the daemon last wrote on a node: its state and reason. */
function nodeFailure(node: KubeObject): string {
  const a = annotationsOf(node);
  return JSON.stringify([a[MCD_STATE], a[MCD_REASON] ?? ""]);
}

/**
 * The failures this wait saw on nodes before their daemon took up the pool's target, or in their first
 * list if the pool already reported degraded nodes at the first look (whether they predate the
 * daemon's attempt on the target cannot be told then), by node name. The
 * daemon writes a node's state and reason only when an update attempt fails (daemon.go handleErr,
 * updateErrorState: SetDegraded, SetUnreconcilable) or is done (updateConfigAndState: SetDone), and
 * keeps them while it works (update.go update: SetWorking only over a state that is not Degraded or
 * Unreconcilable); the MachineConfigNode's NodeDegraded likewise changes only at the end of an attempt
 * (update.go update, deferred reportMachineNodeDegradeStatus). A failure seen before the daemon took
 * up the target and unchanged since it did is the older config's, still shown while the daemon works
 * (`failingNodes`, `failingMachineConfigNodes`).
 */
export interface Inherited {
  /** Whether the pool reported degraded nodes when this wait first saw it; unknown before. */
  poolDegraded?: boolean;
  /**
   * Each node's state and reason (`nodeFailure`) as last seen before its daemon asked to drain it for
   * the target (drain.go performDrain sets desiredDrain to `drain-<desiredConfig>`).
   */
  nodes?: Record<string, string>;
  /**
   * Each MachineConfigNode's NodeDegraded message as last seen before the daemon reported anything
   * for the target (upgrade_monitor.go GenerateAndApplyMachineConfigNodes writes
   * `status.configVersion.desired` from the node's desiredConfig with each change it applies).
   */
  machineConfigNodes?: Record<string, string>;
}

/** Notes in `memory` the failures nodes show in their first list, and later before their daemon took up the pool's target. */
export function noteInherited(
  memory: Inherited,
  pool: KubeObject | undefined,
  nodes: KubeObject[] | undefined,
  machineConfigNodes: KubeObject[] | null | undefined,
): void {
  if (pool && memory.poolDegraded === undefined) memory.poolDegraded = reportsDegradedNodes(pool);
  const target = field<string>(pool, "spec", "configuration", "name");
  if (!target) return;
  // A pool healthy at the first look had no failure then: any seen later arose during this wait.
  const carried = memory.poolDegraded === true;
  if (nodes) {
    const seen: Record<string, string> = {};
    for (const n of nodes) {
      const a = annotationsOf(n);
      if (!isFailing(a[MCD_STATE])) continue;
      const before = (carried && !memory.nodes) || a[DESIRED_DRAIN] !== `drain-${target}`;
      const kept = before ? nodeFailure(n) : memory.nodes?.[n.metadata.name];
      if (kept !== undefined) seen[n.metadata.name] = kept;
    }
    memory.nodes = seen;
  }
  if (machineConfigNodes) {
    const seen: Record<string, string> = {};
    for (const [name, message] of Object.entries(degradedMessages(machineConfigNodes))) {
      const mcn = machineConfigNodes.find((m) => m.metadata.name === name);
      const before =
        (carried && !memory.machineConfigNodes) ||
        field(mcn, "status", "configVersion", "desired") !== target;
      const kept = before ? message : memory.machineConfigNodes?.[name];
      if (kept !== undefined) seen[name] = kept;
    }
    memory.machineConfigNodes = seen;
  }
}

/**
 * Nodes of the pool degraded while handed `target` (their desiredConfig), with the daemon's state and
 * reason. A node still failing an older desired config is not among them: the MCO may hand it the new
 * target (node_controller.go getAllCandidateMachines retargets a Ready node whose daemon is failing).
 * A node whose daemon has asked to drain it for the target while it shows the failure this wait saw
 * before (`Inherited`) is applying the target: that failure is an older config's, unless the reason
 * names the target (update.go update: "can't reconcile config <current> with <target>"). A failure
 * the daemon repeats word for word after that drain cannot be told from a slow apply on the node (its
 * annotations stand still in both) and waits for the deadline; any other failure is the target's,
 * also one the daemon repeats word for word before the drain (a failed preflight check, daemon.go
 * syncNode runPreflightConfigDriftCheck), which changes nothing on the node. The key changes
 * with anything the daemon does to the node (state, reason, current config, drain, readiness), so a
 * failure persists only while the daemon makes no progress; it retries a failed update with a backoff
 * of up to a minute (daemon.go handleErr) and skips a drain already done (drain.go performDrain).
 */
export function failingNodes(
  pool: KubeObject,
  nodes: KubeObject[],
  target: string,
  inherited: Record<string, string> = {},
): OnTarget {
  const out: OnTarget = { failing: [], inherited: [] };
  const onTarget = membersOf(pool, nodes)
    .filter((n) => isFailing(annotationsOf(n)[MCD_STATE]) && annotationsOf(n)[DESIRED_CONFIG] === target)
    .sort(byName);
  for (const n of onTarget) {
    const a = annotationsOf(n);
    const reason = a[MCD_REASON] ?? "";
    const message = `node ${n.metadata.name} (${a[MCD_STATE]}): ${reason || "no reason given"}`;
    const applying = a[DESIRED_DRAIN] === `drain-${target}` && inherited[n.metadata.name] === nodeFailure(n);
    if (applying && !reason.includes(target)) {
      out.inherited.push(message);
      continue;
    }
    const ready = conditionOf(n, "Ready")?.status;
    const acted = [a[MCD_STATE], reason, a[CURRENT_CONFIG], a[DESIRED_DRAIN], a[LAST_APPLIED_DRAIN], ready];
    out.failing.push({ key: `node/${n.metadata.name}@${target}:${JSON.stringify(acted)}`, message });
  }
  return out;
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

/** Nodes degraded at rest that hold the rollout back. */
export interface Holding {
  /** Each node degraded at rest, when they use up maxUnavailable. */
  problems: Problem[];
  /** Those degraded by config drift, when they alone use it up. */
  drifted: string[];
}

/**
 * Nodes degraded at rest (current == desired, not the target: a drifted file, say) when they use up
 * the pool's maxUnavailable: the node controller counts them unavailable (layered_node_state.go
 * IsUnavailableForUpdate: not done, and not failing since current == desired) and then hands no node
 * the target (node_controller.go getAllCandidateMachines: no capacity while unavailable >=
 * maxUnavailable). Config drift ("content mismatch", "mode mismatch": on_disk_validation.go, as
 * daemon.go initConfigDriftMetric recognises it) stays until someone repairs the file, since every
 * retry runs the preflight check again (daemon.go runPreflightConfigDriftCheck); any other failure at
 * rest the daemon retries and clears once a retry succeeds (updateConfigAndState: SetDone).
 */
export function holdingNodes(pool: KubeObject, nodes: KubeObject[], target: string): Holding {
  const members = membersOf(pool, nodes);
  const atRest = members
    .filter((n) => {
      const a = annotationsOf(n);
      return (
        isFailing(a[MCD_STATE]) && a[CURRENT_CONFIG] === a[DESIRED_CONFIG] && a[DESIRED_CONFIG] !== target
      );
    })
    .sort(byName);
  let max = 1;
  try {
    max = resolveMaxUnavailable(field<number | string>(pool, "spec", "maxUnavailable"), members.length);
  } catch {
    // A value the MCO rejects too: it rolls nothing out, which the default of one describes.
  }
  if (atRest.length < max) return { problems: [], drifted: [] };
  const problems = atRest.map((n) => {
    const a = annotationsOf(n);
    return {
      key: `node/${n.metadata.name}@rest:${JSON.stringify([a[MCD_STATE], a[MCD_REASON], a[CURRENT_CONFIG]])}`,
      message: `node ${n.metadata.name} (${a[MCD_STATE]}): ${a[MCD_REASON] || "no reason given"}`,
    };
  });
  const drifted = problems
    .filter((_, i) => /content mismatch|mode mismatch/.test(annotationsOf(atRest[i])[MCD_REASON] ?? ""))
    .map((p) => p.message);
  return { problems, drifted: drifted.length >= max ? drifted : [] };
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
  if (!pool) {
    // Nothing in the cluster tells a config whose pool does not exist (the MCO leaves a MachineConfig
    // of an unknown role alone, unlike a KubeletConfig's Failure): a pool another step of the deployment
    // creates appears within seconds, so one still missing after PERSISTENCE_MS is a misspelt name.
    const absent = { key: `pool/${name}`, message: `${label}: the MachineConfigPool does not exist` };
    const judged = judgePersistence([absent], obs.since ?? {}, obs.nowMs ?? 0);
    if (judged.persisted.length > 0)
      return {
        ...failed(
          `${label}: no MachineConfigPool of that name appeared in ${PERSISTENCE_MS / 60_000} minutes, so nothing renders the configs this wait is for: check the pool's name (oc get mcp lists the pools)`,
        ),
        problems: [absent],
      };
    return {
      ...waiting(`${label}: the MachineConfigPool does not exist yet`),
      problems: [absent],
      recheckMs: judged.recheckMs,
    };
  }

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
  const sources = listOf<{ name: string }>(pool, "spec", "configuration", "source").map((s) => s.name);
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
  // A drain that fails names the pods it cannot evict; what refuses them is read to say it.
  const describePod = (p: BlockedPod) =>
    describeBlockedPod(p, obs.pods?.[podKey(p)], obs.podDisruptionBudgets?.[p.namespace]);
  const phases = mcns ? describeNodePhases(mcns, renderedName, describePod) : "";
  const progressLine = `${label}: ${updated}/${machineCount} updated -> ${renderedName}${phases ? `; ${phases}` : ""}`;
  const blocked = mcns ? drainBlockedPods(mcns, renderedName) : [];
  // Per-node phases come from MachineConfigNodes where the cluster has them.
  const mcnNeeds: PoolNeeds = {
    ...(obs.machineConfigNodes === undefined ? { machineConfigNodes: true } : {}),
    ...(blocked.length > 0 ? { pods: blocked } : {}),
  };
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
  if (reportsDegradedNodes(pool)) {
    // MachineConfigNodes name the phase a node failed in: know whether the cluster has them first.
    if (obs.machineConfigNodes === undefined)
      return { ...waiting(progressLine, mcnNeeds, updated, machineCount), result };
    const byMcn = mcns && failingMachineConfigNodes(mcns, renderedName, obs.inherited?.machineConfigNodes);
    const decided = byMcn && byMcn.failing.length + byMcn.inherited.length > 0 ? byMcn : undefined;
    let onTarget: OnTarget;
    let holding: Holding;
    if (decided) [onTarget, holding] = [decided, { problems: [], drifted: [] }];
    else if (obs.nodes)
      [onTarget, holding] = [
        failingNodes(pool, obs.nodes, renderedName, obs.inherited?.nodes),
        holdingNodes(pool, obs.nodes, renderedName),
      ];
    else return { ...waiting(progressLine, { nodes: true }, updated, machineCount), result };
    const since = obs.since ?? {};
    const judged = judgePersistence(onTarget.failing, since, obs.nowMs ?? 0);
    const problems = [...onTarget.failing, ...holding.problems];
    if (judged.persisted.length > 0)
      return {
        ...failed(`${label} is degraded rolling out ${renderedName}: ${judged.persisted.join("; ")}`),
        problems,
      };
    const cannot = `${label} cannot roll out ${renderedName}: degraded at rest,`;
    const repair = "so the MCO updates no node until they";
    const uses = (list: string[]) =>
      `${list.join("; ")} use${list.length === 1 ? "s" : ""} up maxUnavailable`;
    if (holding.drifted.length > 0)
      return failed(`${cannot} ${uses(holding.drifted)}, ${repair} are repaired`);
    const held = judgePersistence(holding.problems, since, obs.nowMs ?? 0);
    if (held.persisted.length > 0)
      return { ...failed(`${cannot} ${uses(held.persisted)}, ${repair} recover`), problems };
    const parts = [
      ...(judged.pending.length > 0 ? [`degraded: ${judged.pending.join("; ")}`] : []),
      ...(held.pending.length > 0 ? [`held back by nodes degraded at rest: ${held.pending.join("; ")}`] : []),
      ...(onTarget.inherited.length > 0
        ? [
            `degraded on an older config while the daemon applies the target: ${onTarget.inherited.join("; ")}`,
          ]
        : []),
    ];
    if (parts.length > 0) {
      const recheck = [judged.recheckMs, held.recheckMs].filter((ms): ms is number => ms !== undefined);
      return {
        ...waiting(`${progressLine}; ${parts.join("; ")}`, mcnNeeds, updated, machineCount),
        result,
        problems,
        recheckMs: recheck.length > 0 ? Math.min(...recheck) : undefined,
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
