/**
 * When an operator is installed through OLM: the Subscription's `installedCSV`, found by that name, has
 * succeeded and no upgrade is in flight (`state: AtLatestKnown` alone proves nothing). With Manual
 * approval and a pinned startingCSV, the installed CSV must be the pinned one, and exactly the InstallPlan
 * that the Subscription owns and that installs it is approved; no other plan is ever touched.
 *
 * What OLM retries is not final (persistence.ts): ResolutionFailed, CatalogSourcesUnhealthy and a Failed
 * CSV fail the wait only when they concern this operator and persist. A failed InstallPlan is final: OLM
 * does not execute a plan again.
 */
import { conditionOf, field, KubeObject } from "./kinds";
import { evaluateDeployments } from "./operator-deployments";
import { judgePersistence, Problem, Sightings } from "./persistence";
import { WaitState } from "./progress";

export interface OperatorTarget {
  namespace: string;
  subscription: string;
  /** The pinned CSV; required to approve anything under Manual approval. */
  startingCSV?: string;
}

export interface OperatorObservation {
  subscription: KubeObject | undefined;
  installPlans: KubeObject[];
  csvs: KubeObject[];
  /**
   * The Deployments of the installed CSV (labelled `olm.owner=<CSV>`), once listed: each must carry the
   * Subscription's `spec.config` and be available. Not checked when absent.
   */
  deployments?: KubeObject[];
  /** The pods of the Deployments not available, which say why (the scheduler's message). */
  pods?: KubeObject[];
  /**
   * The CRDs the installed CSV owns, by name (null: not there), once read: each must be Established and
   * its kind served. Not checked when absent.
   */
  crds?: Record<string, KubeObject | null | undefined>;
  /** Owned CRDs whose kind the API server serves (a list of the kind answered). */
  served?: string[];
  /** When this wait began to see each problem (see persistence.ts); none seen before when absent. */
  since?: Sightings;
  /** Now, on the clock of `since`. */
  nowMs?: number;
}

export interface OperatorResult {
  installedCSV: string;
  phase: string;
  /** The CRDs the installed CSV owns, each served by the API server (when checked). */
  crds?: string[];
  /** InstallPlans this wait approved, by name. */
  approvedInstallPlan?: string;
}

export interface OperatorEvaluation {
  state: WaitState;
  message: string;
  done?: number;
  total?: number;
  result?: OperatorResult;
  /** The InstallPlan to approve now. */
  approve?: string;
  /** Failures OLM retries, seen now: the waiter records them to judge their persistence. */
  problems: Problem[];
  /** Evaluate again after this long, when a problem may have persisted. */
  recheckMs?: number;
  /** What the wait must read to judge the installed CSV: its Deployments' pods, its CRDs, their kinds. */
  reads?: OperatorReads;
}

export interface OperatorReads {
  /** The installed CSV, whose Deployments are listed by its name. */
  csv?: string;
  /** Deployments (by name) not available, whose pods to list. */
  podsOf: KubeObject[];
  /** Owned CRDs to read, by name. */
  crds: string[];
  /** Established CRDs whose kind to list, to see it served. */
  kinds: KubeObject[];
}

/** The owned CRDs of a CSV (`spec.customresourcedefinitions.owned[].name`). */
export function ownedCrds(csv: KubeObject | undefined): string[] {
  return (field<Array<{ name: string }>>(csv, "spec", "customresourcedefinitions", "owned") ?? []).map(
    (o) => o.name,
  );
}

const established = (crd: KubeObject | null | undefined) =>
  conditionOf(crd ?? undefined, "Established")?.status === "True" &&
  conditionOf(crd ?? undefined, "NamesAccepted")?.status !== "False";

/** Why the owned CRDs are not all served yet, one line each; empty when they are. */
function crdsPending(names: string[], obs: OperatorObservation): string[] {
  if (!obs.crds) return [];
  return names.flatMap((name) => {
    const crd = obs.crds![name];
    if (crd === undefined) return [`reading CRD ${name}`];
    if (crd === null) return [`CRD ${name} not created yet`];
    if (!established(crd)) return [`CRD ${name} not Established yet`];
    return (obs.served ?? []).includes(name) ? [] : [`CRD ${name} not served yet`];
  });
}

const STEPS = 3;

function ownedBy(plan: KubeObject, subscription: KubeObject): boolean {
  return (plan.metadata.ownerReferences ?? []).some(
    (o) =>
      o.kind === "Subscription" &&
      o.name === subscription.metadata.name &&
      (!o.uid || !subscription.metadata.uid || o.uid === subscription.metadata.uid),
  );
}

const csvNamesOf = (plan: KubeObject) => field<string[]>(plan, "spec", "clusterServiceVersionNames") ?? [];

/** The one InstallPlan this wait may approve: owned by the Subscription and installing the pinned CSV. */
export function approvablePlan(
  subscription: KubeObject,
  plans: KubeObject[],
  startingCSV: string,
): KubeObject | undefined {
  return plans.find(
    (p) =>
      ownedBy(p, subscription) &&
      csvNamesOf(p).includes(startingCSV) &&
      field(p, "spec", "approved") !== true,
  );
}

/**
 * Whether CatalogSourcesUnhealthy is about this Subscription's own catalog source. OLM raises it when ANY
 * catalog source in scope is unhealthy, lists each one's health, and names the Subscription's own in the
 * message only when that one is at fault, keeping the old message otherwise
 * (catalog/subscription/state.go, catalogHealthState.UpdateHealth): the list decides, and a source
 * missing from it (or no list: no sources at all) is at fault.
 */
function ownCatalogUnhealthy(sub: KubeObject): boolean {
  const source = field<string>(sub, "spec", "source");
  const sourceNamespace = field<string>(sub, "spec", "sourceNamespace");
  const health =
    field<Array<{ catalogSourceRef?: { name?: string; namespace?: string }; healthy?: boolean }>>(
      sub,
      "status",
      "catalogHealth",
    ) ?? [];
  const own = health.find(
    (h) => h.catalogSourceRef?.name === source && h.catalogSourceRef?.namespace === sourceNamespace,
  );
  return own?.healthy !== true;
}

/**
 * Whether ResolutionFailed stops this operator. OLM resolves a namespace at once and sets the same
 * condition on each of its Subscriptions (catalog/operator.go, syncResolvingNamespace): an error that
 * prevented resolution stops them all, while unsatisfiable constraints name the Subscriptions, packages
 * and catalogs involved, and concern this one only when they name it.
 */
function resolutionConcerns(sub: KubeObject, reason: string | undefined, message: string): boolean {
  if (reason !== "ConstraintsNotSatisfiable") return true;
  const names = [sub.metadata.name, field<string>(sub, "spec", "name"), field<string>(sub, "spec", "source")];
  return names.some((n) => !!n && message.includes(n));
}

/** The failures OLM retries that concern this operator now, and those seen that concern other operators. */
function problemsOf(sub: KubeObject, csvs: KubeObject[]): { mine: Problem[]; others: string[] } {
  const mine: Problem[] = [];
  const others: string[] = [];
  const unhealthy = conditionOf(sub, "CatalogSourcesUnhealthy");
  if (unhealthy?.status === "True") {
    const message = unhealthy.message ?? "";
    if (ownCatalogUnhealthy(sub)) {
      const source = `${field<string>(sub, "spec", "sourceNamespace") ?? ""}/${field<string>(sub, "spec", "source") ?? ""}`;
      mine.push({
        key: "CatalogSourcesUnhealthy",
        message: `CatalogSourcesUnhealthy: catalog source ${source}: ${message || unhealthy.reason || "unhealthy"}`,
      });
    } else others.push("another catalog source is unhealthy");
  }
  const resolution = conditionOf(sub, "ResolutionFailed");
  if (resolution?.status === "True") {
    const message = resolution.message || resolution.reason || "no message";
    if (resolutionConcerns(sub, resolution.reason, message))
      mine.push({ key: "ResolutionFailed", message: `ResolutionFailed: ${message}` });
    else others.push(`resolution failed for another Subscription: ${message}`);
  }
  const names = [field<string>(sub, "status", "installedCSV"), field<string>(sub, "status", "currentCSV")];
  for (const name of new Set(names)) {
    const csv = name ? csvs.find((c) => c.metadata.name === name) : undefined;
    if (csv && field(csv, "status", "phase") === "Failed") {
      const reason = field<string>(csv, "status", "reason");
      mine.push({
        key: `csv/${name}`,
        message: `ClusterServiceVersion ${name} failed${reason ? ` (${reason})` : ""}: ${field<string>(csv, "status", "message") ?? "no message"}`,
      });
    }
  }
  return { mine, others };
}

export function evaluateOperatorInstall(
  target: OperatorTarget,
  obs: OperatorObservation,
): OperatorEvaluation {
  const label = `operator ${target.namespace}/${target.subscription}`;
  const sub = obs.subscription;
  if (!sub)
    return {
      state: "waiting",
      message: `${label}: the Subscription does not exist yet`,
      done: 0,
      total: STEPS,
      problems: [],
    };
  const failed = (message: string, problems: Problem[] = []): OperatorEvaluation => ({
    state: "failed",
    message: `${label}: ${message}`,
    problems,
  });

  // OLM does not execute a failed InstallPlan again (catalog/operator.go, syncInstallPlans).
  const planFailed = conditionOf(sub, "InstallPlanFailed");
  if (planFailed?.status === "True")
    return failed(`InstallPlanFailed: ${planFailed.message || planFailed.reason || "no message"}`);
  const planName = field<string>(sub, "status", "installPlanRef", "name");
  const plan = planName ? obs.installPlans.find((p) => p.metadata.name === planName) : undefined;
  if (plan && field(plan, "status", "phase") === "Failed") {
    return failed(
      `InstallPlan ${planName} failed: ${field<string>(plan, "status", "message") ?? conditionOf(plan, "Installed")?.message ?? "no message"}`,
    );
  }

  const installed = field<string>(sub, "status", "installedCSV");
  const installedCsv = obs.csvs.find((c) => c.metadata.name === installed);
  const strategy = (
    field<Array<{ name: string }>>(installedCsv, "spec", "install", "spec", "deployments") ?? []
  ).map((d) => d.name);
  const running =
    installedCsv && obs.deployments
      ? evaluateDeployments(strategy, obs.deployments, obs.pods ?? [], field(sub, "spec", "config"))
      : undefined;
  const mine = problemsOf(sub, obs.csvs);
  const others = mine.others;
  const problems = [...mine.mine, ...(running?.problems ?? [])];
  const judged = judgePersistence(problems, obs.since ?? {}, obs.nowMs ?? 0);
  const crds = ownedCrds(installedCsv);
  const reads: OperatorReads | undefined = installedCsv && {
    csv: installedCsv.metadata.name,
    podsOf: running?.unavailable ?? [],
    crds,
    kinds: crds.map((n) => obs.crds?.[n]).filter((c): c is KubeObject => !!c && established(c)),
  };
  const current = field<string>(sub, "status", "currentCSV");
  const manual = field(sub, "spec", "installPlanApproval") === "Manual";
  const pinned = manual ? target.startingCSV : undefined;
  const phase = field<string>(
    obs.csvs.find((c) => c.metadata.name === installed),
    "status",
    "phase",
  );
  // An upgrade is in flight while currentCSV is ahead of installedCSV (state UpgradePending), unless its
  // plan waits for a person's approval, which this wait gives only to the pinned CSV.
  const upgradePlanApproved = plan ? field(plan, "spec", "approved") === true : !manual;
  const upgrading = !!installed && !!current && current !== installed && upgradePlanApproved;
  const installedWanted = pinned ? installed === pinned : !upgrading;
  if (running?.failure) return failed(running.failure, problems);
  const notYet =
    installed && phase === "Succeeded" ? [...(running?.waiting ?? []), ...crdsPending(crds, obs)] : [];
  if (
    installed &&
    phase === "Succeeded" &&
    installedWanted &&
    notYet.length === 0 &&
    (running?.problems.length ?? 0) === 0
  )
    return {
      state: "done",
      message: `${label}: ${installed} Succeeded`,
      done: STEPS,
      total: STEPS,
      result: { installedCSV: installed, phase, ...(obs.crds ? { crds } : {}) },
      problems,
      ...(reads ? { reads } : {}),
    };
  if (judged.persisted.length > 0) return failed(judged.persisted.join("; "), problems);

  const waiting = (message: string, done: number, extra: Partial<OperatorEvaluation> = {}) => {
    const notes = [...judged.pending, ...others];
    return {
      state: "waiting" as const,
      message: `${label}: ${message}${notes.length > 0 ? `; ${notes.join("; ")}` : ""}`,
      done,
      total: STEPS,
      problems,
      ...(judged.recheckMs !== undefined ? { recheckMs: judged.recheckMs } : {}),
      ...(installed ? { result: { installedCSV: installed, phase: phase ?? "" } } : {}),
      ...(reads ? { reads } : {}),
      ...extra,
    };
  };

  const pending = obs.installPlans.filter((p) => ownedBy(p, sub) && field(p, "spec", "approved") !== true);
  if (manual && !target.startingCSV && !installed && pending.length > 0) {
    return failed(
      `installPlanApproval is Manual and no startingCSV is pinned, so nothing may be approved automatically; approve InstallPlan ${pending.map((p) => p.metadata.name).join(", ")} yourself or pin startingCSV`,
      problems,
    );
  }
  if (pinned && installed !== pinned) {
    const approvable = approvablePlan(sub, obs.installPlans, pinned);
    if (approvable)
      return waiting(`approving InstallPlan ${approvable.metadata.name} for ${pinned}`, 1, {
        approve: approvable.metadata.name,
      });
    if (current !== pinned) {
      const offered = pending.map((p) => `${p.metadata.name} (${csvNamesOf(p).join(", ")})`);
      return waiting(
        `waiting for an InstallPlan for ${pinned}${installed ? ` (installed: ${installed})` : ""}${offered.length > 0 ? `; not approving ${offered.join(", ")}` : ""}`,
        1,
      );
    }
  }
  if (upgrading) return waiting(`upgrade from ${installed} to ${current} in flight`, 2);
  if (installed && notYet.length > 0) return waiting(`${installed} ${phase}, ${notYet.join("; ")}`, 2);
  if (installed) return waiting(`${installed} ${phase || "not created yet"}`, 2);
  const state = field<string>(sub, "status", "state");
  return waiting(
    `${planName ? `InstallPlan ${planName} ${field<string>(plan, "status", "phase") ?? "pending"}` : `resolving${state ? ` (${state})` : ""}`}${current ? `, CSV ${current}` : ""}`,
    planName ? 1 : 0,
  );
}
