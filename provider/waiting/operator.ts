/**
 * When an operator is installed through OLM: the Subscription names an installed CSV and that CSV has
 * succeeded (`state: AtLatestKnown` alone proves nothing). With Manual approval and a pinned
 * startingCSV, exactly the InstallPlan that the Subscription owns and that installs that CSV is
 * approved; no other plan is ever touched.
 */
import { conditionOf, field, KubeObject } from "./kinds";
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
}

export interface OperatorResult {
  installedCSV: string;
  phase: string;
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
}

const FAILING_CONDITIONS = ["ResolutionFailed", "InstallPlanFailed", "CatalogSourcesUnhealthy"];
const STEPS = 3;

function ownedBy(plan: KubeObject, subscription: KubeObject): boolean {
  return (plan.metadata.ownerReferences ?? []).some(
    (o) =>
      o.kind === "Subscription" &&
      o.name === subscription.metadata.name &&
      (!o.uid || !subscription.metadata.uid || o.uid === subscription.metadata.uid),
  );
}

/** The one InstallPlan this wait may approve: owned by the Subscription and installing the pinned CSV. */
export function approvablePlan(
  subscription: KubeObject,
  plans: KubeObject[],
  startingCSV: string,
): KubeObject | undefined {
  return plans.find(
    (p) =>
      ownedBy(p, subscription) &&
      (field<string[]>(p, "spec", "clusterServiceVersionNames") ?? []).includes(startingCSV) &&
      field(p, "spec", "approved") !== true,
  );
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
    };
  for (const type of FAILING_CONDITIONS) {
    const c = conditionOf(sub, type);
    if (c?.status === "True") {
      return { state: "failed", message: `${label}: ${type}: ${c.message ?? c.reason ?? "no message"}` };
    }
  }
  const installed = field<string>(sub, "status", "installedCSV");
  const current = field<string>(sub, "status", "currentCSV");
  for (const name of [installed, current]) {
    const csv = name ? obs.csvs.find((c) => c.metadata.name === name) : undefined;
    if (csv && field(csv, "status", "phase") === "Failed") {
      const reason = field<string>(csv, "status", "reason");
      return {
        state: "failed",
        message: `${label}: ClusterServiceVersion ${name} failed${reason ? ` (${reason})` : ""}: ${field<string>(csv, "status", "message") ?? "no message"}`,
      };
    }
  }
  const planName = field<string>(sub, "status", "installPlanRef", "name");
  const plan = planName ? obs.installPlans.find((p) => p.metadata.name === planName) : undefined;
  if (plan && field(plan, "status", "phase") === "Failed") {
    return {
      state: "failed",
      message: `${label}: InstallPlan ${planName} failed: ${field<string>(plan, "status", "message") ?? conditionOf(plan, "Installed")?.message ?? "no message"}`,
    };
  }

  if (installed) {
    const csv = obs.csvs.find((c) => c.metadata.name === installed);
    const phase = field<string>(csv, "status", "phase") ?? "";
    const result = { installedCSV: installed, phase };
    if (phase === "Succeeded")
      return {
        state: "done",
        message: `${label}: ${installed} Succeeded`,
        done: STEPS,
        total: STEPS,
        result,
      };
    return {
      state: "waiting",
      message: `${label}: ${installed} ${phase || "not created yet"}`,
      done: 2,
      total: STEPS,
      result,
    };
  }

  const manual = field(sub, "spec", "installPlanApproval") === "Manual";
  const pending = obs.installPlans.filter((p) => ownedBy(p, sub) && field(p, "spec", "approved") !== true);
  if (manual && pending.length > 0) {
    if (!target.startingCSV) {
      return {
        state: "failed",
        message: `${label}: installPlanApproval is Manual and no startingCSV is pinned, so nothing may be approved automatically; approve InstallPlan ${pending.map((p) => p.metadata.name).join(", ")} yourself or pin startingCSV`,
      };
    }
    const approvable = approvablePlan(sub, obs.installPlans, target.startingCSV);
    if (approvable) {
      return {
        state: "waiting",
        message: `${label}: approving InstallPlan ${approvable.metadata.name} for ${target.startingCSV}`,
        done: 1,
        total: STEPS,
        approve: approvable.metadata.name,
      };
    }
    const offered = pending.map(
      (p) =>
        `${p.metadata.name} (${(field<string[]>(p, "spec", "clusterServiceVersionNames") ?? []).join(", ")})`,
    );
    return {
      state: "waiting",
      message: `${label}: waiting for an InstallPlan for ${target.startingCSV}; not approving ${offered.join(", ")}`,
      done: 1,
      total: STEPS,
    };
  }
  const state = field<string>(sub, "status", "state");
  return {
    state: "waiting",
    message: `${label}: ${planName ? `InstallPlan ${planName} ${field<string>(plan, "status", "phase") ?? "pending"}` : `resolving${state ? ` (${state})` : ""}`}${current ? `, CSV ${current}` : ""}`,
    done: planName ? 1 : 0,
    total: STEPS,
  };
}
