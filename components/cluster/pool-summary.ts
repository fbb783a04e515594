/**
 * At preview, one summary per pool of everything the program's components declare for it, printed
 * once: the render of its MachineConfigs, KubeletConfigs and ContainerRuntimeConfigs together (one
 * render, one rollout, as `up` makes it, whichever component declares each), its own settings, the
 * machines its MachineSets replace or leave on their old spec, and its nodes' labels and taints. Each
 * component hands its part in as it is constructed; once every part handed in is known, the cluster is
 * read (once per kubeconfig and run, cluster-snapshot.ts) and each pool gets its line, on the pool's
 * component when the program declares the pool, else on the first component that named it. Every
 * component gets the pool's summary back (its `rolloutImpact` is the pool's render).
 */
import * as pulumi from "@pulumi/pulumi";
import {
  deadlineProblem,
  canaryPhrases,
  NodeDisruptionPolicy,
  ObjectLike,
  PoolImpact,
  PoolSummary,
  summaryLine,
} from "../../builders/rollout-impact";
import { describeMachineSetChange, MachineReplacementPolicy } from "../../builders/machineset";
import { PoolRollout } from "../../provider/dynamic";
import { RolloutBaseline } from "../../provider/dynamic/rollout-baseline";
import { child } from "../declared";
import { clusterOfThisRun, partOfThisRun, PreviewRun, thisRun } from "./preview-run";
import { runnerDrainedWarning, runnerPlace } from "./runner";
import {
  canaryMoveIn,
  declaredPool,
  DeclaredMachineSet,
  machineSetChangesIn,
  PoolSettings,
  renderImpactIn,
  settingsOf,
} from "./rollout-impact";

/** What one component declares for a pool. */
export type PoolPart =
  /** A MachineConfig, KubeletConfig or ContainerRuntimeConfig, with its kind. */
  | { kind: "object"; object: ObjectLike }
  /** The pool's own MachineConfigPool manifest (its settings and selection). */
  | { kind: "pool"; manifest: ObjectLike }
  /** The pool's MachineSets and how its machines are replaced. */
  | { kind: "machines"; machineSets: DeclaredMachineSet[]; policy?: MachineReplacementPolicy }
  /** What its running nodes' labels and taints become, one phrase each. */
  | { kind: "nodeMetadata"; phrases: string[] }
  /** The pool is a canary of `parent` (CanaryPool): the nodes joining it and those returning. */
  | { kind: "canary"; parent: string; joining: string[]; returning: string[] };

/** Which pool a part is for: a MachineConfigPool renders; Windows machines belong to none. */
export interface PoolOfPart {
  name: pulumi.Input<string>;
  renders: boolean;
  /** The deadline the component's waiter for the pool is given (`waitTimeouts`), in seconds. */
  deadlineSeconds?: number;
}

interface HandedIn {
  parent: pulumi.Resource;
  /** How many NodeDisruptionPolicy components the program declared before the part's component. */
  policiesBefore: number;
  kubeconfig: string;
  pool: string;
  renders: boolean;
  part: PoolPart;
  /** The deadline its component's waiter is given (`waitTimeouts`), in seconds. */
  deadlineSeconds?: number;
  answer(summary: PoolSummary | undefined): void;
}

/** The value of an output, or undefined while a preview does not know it. */
async function known<T>(output: pulumi.Output<T>): Promise<T | undefined> {
  const internal = output as unknown as { isKnown: Promise<boolean>; promise(): Promise<T> };
  return (await internal.isKnown) ? internal.promise() : undefined;
}

/** A NodeDisruptionPolicy component of the program: its place among them, and what it declares. */
export interface DeclaredPolicy {
  /** Its place in the order the program declares them, from 0. */
  seq: number;
  name: string;
  policy: pulumi.Output<NodeDisruptionPolicy>;
}

/** This run's parts, handed in and not yet summarized, and how many are still to be known. */
class Parts {
  private unsettled = 0;
  private ready: HandedIn[] = [];
  /** The node disruption policies the program declares, per kubeconfig, as they become known. */
  readonly policies = new Map<string, Array<{ seq: number; name: string; policy: NodeDisruptionPolicy }>>();

  constructor(private readonly run: PreviewRun) {}

  /** A policy joins the summaries of its cluster's pools: they wait for it as for a part. */
  handInPolicy(kubeconfig: pulumi.Output<string>, declared: DeclaredPolicy): void {
    this.unsettled++;
    known(pulumi.all([pulumi.unsecret(kubeconfig), declared.policy]))
      .then((values) => {
        if (values === undefined) return;
        const [config, policy] = values;
        this.policies.set(config, [...(this.policies.get(config) ?? []), { ...declared, policy }]);
      })
      // A policy that fails is its component's own error, reported where it is declared.
      .catch(() => undefined)
      .finally(() => {
        if (--this.unsettled === 0) setImmediate(() => this.summarizeReady());
      });
  }

  handIn(
    parent: pulumi.Resource,
    kubeconfig: pulumi.Output<string>,
    pool: PoolOfPart,
    part: pulumi.Output<PoolPart>,
  ): Promise<PoolSummary | undefined> {
    this.unsettled++;
    const policiesBefore = this.run.policies.length;
    return new Promise((answer) => {
      known(pulumi.all([pulumi.unsecret(kubeconfig), pool.name, part]))
        .then((values) => {
          if (values === undefined) return answer(undefined);
          const [config, name, what] = values;
          this.ready.push({
            parent,
            policiesBefore,
            kubeconfig: config,
            pool: name,
            renders: pool.renders,
            part: what,
            deadlineSeconds: pool.deadlineSeconds,
            answer,
          });
        })
        // A part that fails is the component's own error, reported where it is declared.
        .catch(() => answer(undefined))
        .finally(() => {
          // Parts handed in while these settle (a component made inside an apply) join the same batch.
          if (--this.unsettled === 0) setImmediate(() => this.summarizeReady());
        });
    });
  }

  private summarizeReady(): void {
    if (this.unsettled > 0) return;
    const batch = this.ready.splice(0);
    const groups = new Map<string, HandedIn[]>();
    for (const h of batch) {
      const key = JSON.stringify([h.kubeconfig, h.pool, h.renders]);
      groups.set(key, [...(groups.get(key) ?? []), h]);
    }
    for (const group of groups.values()) {
      // Every object the program declares on the cluster: a pool's selector picks those it renders
      // (a custom pool the worker pool's too).
      const { kubeconfig } = group[0];
      const objects = batch.flatMap((h) =>
        h.kubeconfig === kubeconfig && h.part.kind === "object" ? [h.part.object] : [],
      );
      // A canary's nodes leave its parent, and return to it, on the same `up`.
      const nodesMoving = batch.reduce(
        (sum, h) =>
          h.kubeconfig === kubeconfig && h.part.kind === "canary" && h.part.parent === group[0].pool
            ? sum + h.part.returning.length - h.part.joining.length
            : sum,
        0,
      );
      void summarize(this.run, group, objects, this.policies.get(kubeconfig) ?? [], nodesMoving).then(
        (summary) => group.forEach((h) => h.answer(summary)),
        () => group.forEach((h) => h.answer(undefined)),
      );
    }
  }
}

const PARTS = Symbol("pool summary parts");

/** The component the pool's line goes on: the pool's own, else the one with its machines, else the first. */
function home(group: HandedIn[]): pulumi.Resource {
  const by = (kind: PoolPart["kind"]) => group.find((h) => h.part.kind === kind);
  return (by("pool") ?? by("machines") ?? group[0]).parent;
}

/**
 * The declared policies a pool's rollout follows: those applied before every object the program
 * declares for the pool (the objects depend on the policies declared before them), else, with no such
 * object, before the pool's own settings. A policy declared later may be applied after the pool began
 * to roll out, so the line leaves it out and a warning says so.
 */
function policiesFollowed(
  group: HandedIn[],
  policies: Array<{ seq: number; name: string; policy: NodeDisruptionPolicy }>,
): { followed: NodeDisruptionPolicy[]; late: string[] } {
  const objects = group.filter((h) => h.part.kind === "object");
  const deciding = objects.length > 0 ? objects : group.filter((h) => h.part.kind === "pool");
  const before = Math.min(...deciding.map((h) => h.policiesBefore));
  const ordered = [...policies].sort((a, b) => a.seq - b.seq);
  return {
    followed: ordered.filter((p) => p.seq < before).map((p) => p.policy),
    late: deciding.length > 0 ? ordered.filter((p) => p.seq >= before).map((p) => p.name) : [],
  };
}

/** One group's summary, its line logged; undefined (with a warning) when the cluster gives no answer. */
async function summarize(
  run: PreviewRun,
  group: HandedIn[],
  objects: ObjectLike[],
  policies: Array<{ seq: number; name: string; policy: NodeDisruptionPolicy }>,
  nodesMoving: number,
): Promise<PoolSummary | undefined> {
  const { kubeconfig, pool, renders } = group[0];
  const parent = home(group);
  const cluster = clusterOfThisRun(kubeconfig);
  const down = await cluster.unreachableBecause();
  if (down !== undefined) {
    // Asked once per kubeconfig and run: without it every pool of a preview would wait out its own
    // request timeouts against a cluster that is down or behind a closed VPN.
    pulumi.log.warn(`pool ${pool}: rollout impact unknown: the cluster does not answer: ${down}`, parent);
    return undefined;
  }
  const parts = <K extends PoolPart["kind"]>(kind: K) =>
    group.flatMap((h) => (h.part.kind === kind ? [h.part as Extract<PoolPart, { kind: K }>] : []));
  const poolPart = parts("pool")[0];
  const { followed, late } = policiesFollowed(group, policies);
  try {
    const render = renders
      ? await renderImpactIn(cluster, pool, {
          objects,
          ...(poolPart ? { settings: declaredPool(poolPart.manifest) } : {}),
          policies: followed,
          nodesMoving,
        })
      : undefined;
    if (render && late.length > 0)
      pulumi.log.warn(
        `pool ${pool}: NodeDisruptionPolicy ${late.map((n) => `"${n}"`).join(", ")} is declared after what the program declares for this pool, so up may apply it once the pool is rolling out: this line leaves it out; declare it first`,
        parent,
      );
    if (renders && !render && !poolPart && !run.declaredPools.has(pool)) {
      for (const h of group)
        if (h.part.kind === "object")
          // The MCO would answer "does not match any MachineConfigPools", and `up` fail on it.
          pulumi.log.warn(
            `pool ${pool}: neither in the cluster nor declared in this program (by an InfraNodePool or MachineConfigPool): ${h.part.object.kind} ${h.part.object.metadata?.name ?? ""} selects no pool unless something else creates it; check the pool's name`,
            h.parent,
          );
      return undefined;
    }
    const machineSets = (
      await Promise.all(parts("machines").map((p) => machineSetChangesIn(cluster, p.machineSets, p.policy)))
    ).flat();
    const canary = parts("canary")[0];
    const moves = canary
      ? canaryPhrases(
          canary,
          await canaryMoveIn(
            cluster,
            {
              from: canary.parent,
              to: pool,
              manifest: poolPart?.manifest,
              nodes: Math.max(canary.joining.length, canary.returning.length, 1),
            },
            { objects, policies: followed },
          ),
        )
      : [];
    const then = [...run.rolloutOrder].flatMap(([p, after]) => (after.includes(pool) ? [p] : []));
    const summary: PoolSummary = {
      pool,
      ...(render ? { render } : {}),
      // A canary's nodes join it from their pool: none boots with its first render.
      ...(renders && !render && !canary ? { newPool: true } : {}),
      machineSets,
      nodeMetadata: [...moves, ...parts("nodeMetadata").flatMap((p) => p.phrases)],
      ...(run.rolloutOrder.has(pool) ? { after: run.rolloutOrder.get(pool) } : {}),
      ...(then.length > 0 ? { then } : {}),
    };
    // A pool that is no MachineConfigPool (Windows machines) has a line only when its machines change.
    if (renders || machineSets.length > 0 || summary.nodeMetadata.length > 0)
      pulumi.log.info(summaryLine(summary), parent);
    await warnIfRunnerDrained(parent, cluster, kubeconfig, summary);
    // Said once per deadline the pool's components give.
    const problems = group.map((h) => deadlineProblem(summary, h.deadlineSeconds));
    for (const problem of new Set(problems)) if (problem) pulumi.log.warn(`pool ${pool}: ${problem}`, parent);
    return summary;
  } catch (e) {
    pulumi.log.warn(`pool ${pool}: rollout impact unknown: ${(e as Error).message}`, parent);
    return undefined;
  }
}

const RUNNER_WARNED = Symbol("pools whose change drains the runner's node");

/**
 * Warns, once per pool and run, when the pool's render drains the node this program runs on or its
 * MachineSets replace (and so drain) the machines that node may be.
 */
async function warnIfRunnerDrained(
  parent: pulumi.Resource,
  cluster: ReturnType<typeof clusterOfThisRun>,
  kubeconfig: string,
  summary: PoolSummary,
): Promise<void> {
  const { render } = summary;
  const renderDrains = render !== undefined && render.drain && !render.paused && render.machineCount > 0;
  if (!renderDrains && !summary.machineSets.some((c) => c.replacement)) return;
  const place = await runnerPlace(cluster, kubeconfig);
  const warned = partOfThisRun(RUNNER_WARNED, () => new Set<string>());
  if (place?.pool !== summary.pool || warned.has(summary.pool)) return;
  warned.add(summary.pool);
  pulumi.log.warn(runnerDrainedWarning(summary.pool, place), parent);
}

/**
 * Hands a component's part in to its pool's summary and returns the summary: at preview with a
 * kubeconfig; undefined on `up` (the change may already be applied) and without one.
 */
export function handInToPool(
  parent: pulumi.Resource,
  kubeconfig: pulumi.Output<string> | undefined,
  pool: PoolOfPart,
  part: pulumi.Output<PoolPart>,
): pulumi.Output<PoolSummary | undefined> {
  if (!pulumi.runtime.isDryRun() || !kubeconfig) return pulumi.output(undefined);
  return pulumi.output(partsOfThisRun().handIn(parent, kubeconfig, pool, part));
}

function partsOfThisRun(): Parts {
  const run = thisRun();
  return partOfThisRun(PARTS, () => new Parts(run));
}

/**
 * Registers a NodeDisruptionPolicy component's patch, in the order the program declares them, and
 * returns its place: the node configuration components declared after it depend on it
 * (policiesDeclared), and their pools' lines follow it.
 */
export function declarePolicy(patch: pulumi.Output<pulumi.Resource>): number {
  const { policies } = thisRun();
  policies.push(patch);
  return policies.length - 1;
}

/** The patches of the NodeDisruptionPolicy components declared so far in this run. */
export function policiesDeclared(): pulumi.Output<pulumi.Resource>[] {
  return [...thisRun().policies];
}

/** At preview with a kubeconfig, a declared policy joins its cluster's pool lines. */
export function handInPolicy(kubeconfig: pulumi.Output<string> | undefined, declared: DeclaredPolicy): void {
  if (pulumi.runtime.isDryRun() && kubeconfig) partsOfThisRun().handInPolicy(kubeconfig, declared);
}

/**
 * At preview, the pool's MachineSets whose machines run another spec than their template, folded into
 * the pool's line (`3 machines keep m6i.xlarge; ...`, or how they are replaced), and, per MachineSet,
 * the component's `machineSpecChanges` output; undefined on `up`, without a kubeconfig and when the
 * cluster gives no answer.
 */
export function previewMachineSpecChanges(
  parent: pulumi.Resource,
  kubeconfig: pulumi.Output<string> | undefined,
  pool: PoolOfPart,
  machineSets: pulumi.Output<DeclaredMachineSet[]>,
  policy: pulumi.Output<MachineReplacementPolicy> | undefined,
): pulumi.Output<string[] | undefined> {
  const part = pulumi
    .all([machineSets, policy])
    .apply(([sets, p]): PoolPart => ({ kind: "machines", machineSets: sets, ...(p ? { policy: p } : {}) }));
  return pulumi
    .all([handInToPool(parent, kubeconfig, pool, part), machineSets])
    .apply(([summary, sets]) =>
      summary?.machineSets
        .filter((c) => sets.some((s) => s.name === c.machineSet))
        .map(describeMachineSetChange),
    );
}

/** What a component declares for its pool. */
export interface DeclaredForPool {
  kubeconfig: pulumi.Output<string> | undefined;
  /** The deadline its waiter is given (`waitTimeouts`), in seconds. */
  deadlineSeconds?: number;
  pool: pulumi.Input<string>;
  /** `MachineConfigPool` for the pool's own settings, else the kind of the node configuration object. */
  kind: string;
  manifest: pulumi.Output<ObjectLike>;
}

/** What a pool or node configuration component keeps for the next preview's rollout impact. */
export interface RolloutRecord {
  /** The pool waiter's inputs that keep it: what the component declares, and the cluster's answer now. */
  inputs: {
    objects?: pulumi.Output<ObjectLike[]>;
    settings?: pulumi.Output<PoolSettings>;
    clusterImpact: pulumi.Output<PoolImpact | undefined>;
  };
  /**
   * The component's `rolloutImpact`: at preview the cluster's answer for the pool, else what the
   * waiter keeping the record computed against the previous deployment; without a waiter (`wait:
   * false`) a RolloutBaseline keeps the record instead.
   */
  impact(rollout: pulumi.Output<PoolRollout> | undefined): pulumi.Output<PoolImpact | undefined>;
}

/**
 * The rollout record of a pool or node configuration component: at preview, its part of the pool's
 * summary and the pool's render as the cluster answers it, and this deployment's declared inputs,
 * which the pool's waiter keeps with the machine count and per-node timings it observes, so that the
 * next preview can answer without a cluster.
 */
export function rolloutRecord(
  parent: pulumi.Resource,
  name: string,
  declared: DeclaredForPool,
): RolloutRecord {
  const { kubeconfig, pool, kind, manifest, deadlineSeconds } = declared;
  const ownSettings = kind === "MachineConfigPool";
  if (ownSettings) {
    const declaredIn = thisRun().declaredPools;
    pulumi.output(pool).apply((p) => declaredIn.add(p));
  }
  const part = manifest.apply((m): PoolPart =>
    ownSettings ? { kind: "pool", manifest: m } : { kind: "object", object: { ...m, kind } },
  );
  const clusterImpact = handInToPool(
    parent,
    kubeconfig,
    { name: pool, renders: true, deadlineSeconds },
    part,
  ).apply((s) => s?.render);
  const inputs = ownSettings
    ? { settings: manifest.apply(settingsOf), clusterImpact }
    : { objects: manifest.apply((m) => [{ ...m, kind }]), clusterImpact };
  return {
    inputs,
    impact(rollout) {
      // The cluster's answer needs no waiter: it stays known at a preview that updates the waiter.
      if (rollout)
        return clusterImpact.apply((c) =>
          c ? pulumi.output(c) : rollout.apply((r) => r.impact).apply((i) => i ?? undefined),
        ) as pulumi.Output<PoolImpact | undefined>;
      // Nothing waits for the pool, so nothing else keeps the record: the baseline's check returns the
      // cluster's answer when there is one.
      const baseline = child(RolloutBaseline, `${name}-rollout-baseline`, { pool, ...inputs }, { parent });
      return baseline.apply((b) => b.impact).apply((impact) => impact ?? undefined);
    },
  };
}
