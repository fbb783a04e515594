/**
 * The machine-api's MachineHealthCheck controller: a selected machine is unhealthy when its node has
 * held an unhealthy condition past its timeout, when it has no node after `nodeStartupTimeout`, when
 * its node is gone, or when it has Failed. Unhealthy machines owned by a MachineSet are deleted (their
 * MachineSet replaces them) unless more than `maxUnhealthy` are unhealthy at once, in which case
 * remediation stops, as OpenShift's short-circuit does.
 */
import { field, getCondition, labelsOf, obj } from "../../primitives/objects";
import { LabelSelector, selectorMatches } from "../../primitives/selectors";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { WorkQueue } from "./workqueue";
import { Condition, K, KindRef, isKind, keyOf, setCondition } from "./util";

export const MACHINE_HEALTH_CHECK: KindRef = {
  apiVersion: "machine.openshift.io/v1beta1",
  kind: "MachineHealthCheck",
};

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };

/** A Go duration in milliseconds ("0" is zero). */
export function durationMs(value: string): number {
  if (value === "0") return 0;
  let total = 0;
  for (const [, n, unit] of value.matchAll(/([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(n) * UNITS[unit];
  }
  return total;
}

/** `maxUnhealthy` as a machine count for `total` machines (percentages round down, as intstr does). */
function allowedUnhealthy(value: unknown, total: number): number {
  if (typeof value === "number") return value;
  const text = String(value ?? "100%");
  return text.endsWith("%") ? Math.floor((Number(text.slice(0, -1)) * total) / 100) : Number(text);
}

interface Verdict {
  unhealthy: boolean;
  /** When this machine must be looked at again, if it may become unhealthy later. */
  recheckAt?: number;
}

export function startMachineHealthCheck(ctx: ControllerContext): StopFn {
  const { clock } = ctx;
  // The binary of machine-api-operator's cmd/machine-healthcheck, whose user agent names its writes.
  const store = ctx.writer("machine-healthcheck");
  const queue = new WorkQueue("machine-health-check", clock, (key) => sync(key));

  function verdict(mhc: KubeObject, machine: KubeObject, now: number): Verdict {
    if (field(machine, "status", "phase") === "Failed") return { unhealthy: true };
    const nodeName = field<string>(machine, "status", "nodeRef", "name");
    if (!nodeName) {
      const timeout = durationMs(field<string>(mhc, "spec", "nodeStartupTimeout") ?? "10m");
      if (timeout === 0) return { unhealthy: false };
      const deadline = Date.parse(machine.metadata.creationTimestamp ?? "") + timeout;
      return now >= deadline ? { unhealthy: true } : { unhealthy: false, recheckAt: deadline };
    }
    const node = store.get(keyOf(K.node, nodeName));
    if (!node) return { unhealthy: true };
    let recheckAt: number | undefined;
    for (const c of field<Array<{ type: string; status: string; timeout: string }>>(
      mhc,
      "spec",
      "unhealthyConditions",
    ) ?? []) {
      const current = getCondition(field<Condition[]>(node, "status", "conditions"), c.type);
      if (!current || current.status !== c.status) continue;
      const deadline = Date.parse(current.lastTransitionTime ?? "") + durationMs(c.timeout);
      if (now >= deadline) return { unhealthy: true };
      recheckAt = Math.min(recheckAt ?? Infinity, deadline);
    }
    return { unhealthy: false, recheckAt };
  }

  function sync(key: string): void {
    const [namespace, name] = key.split("/");
    const mhc = store.get(keyOf(MACHINE_HEALTH_CHECK, name, namespace));
    if (!mhc || mhc.metadata.deletionTimestamp) return;
    const selector = field<LabelSelector>(mhc, "spec", "selector") ?? {};
    const now = clock.now().getTime();
    const machines = store
      .list(K.machine.apiVersion, K.machine.kind, { namespace })
      .filter((m) => !m.metadata.deletionTimestamp && selectorMatches(selector, labelsOf(m)));
    const verdicts = machines.map((m) => ({ machine: m, ...verdict(mhc, m, now) }));
    const unhealthy = verdicts.filter((v) => v.unhealthy);
    // As the machine-api counts: a machine still within a timeout (no node yet, or a condition not held
    // long enough) is not healthy either, so machines failing together short-circuit at once instead of
    // being remediated one by one as each crosses its timeout.
    const healthy = verdicts.filter((v) => !v.unhealthy && v.recheckAt === undefined).length;
    const notHealthy = machines.length - healthy;
    const allowed = allowedUnhealthy(field(mhc, "spec", "maxUnhealthy"), machines.length);
    const remediate = notHealthy <= allowed;
    if (remediate) {
      for (const { machine } of unhealthy) {
        // Only machines a MachineSet will replace are remediated.
        if ((machine.metadata.ownerReferences ?? []).some((r) => r.kind === "MachineSet" && r.controller)) {
          store.delete(keyOf(K.machine, machine.metadata.name, namespace));
        }
      }
    }
    store.mutate(
      keyOf(MACHINE_HEALTH_CHECK, name, namespace),
      (o) => {
        const status = obj(o.status);
        status.expectedMachines = machines.length;
        status.currentHealthy = healthy;
        status.remediationsAllowed = Math.max(0, allowed - notHealthy);
        status.conditions = setCondition(
          (status.conditions as Condition[] | undefined) ?? [],
          remediate
            ? { type: "RemediationAllowed", status: "True", reason: "", message: "" }
            : {
                type: "RemediationAllowed",
                status: "False",
                reason: "TooManyUnhealthy",
                message: `Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: ${machines.length}, unhealthy: ${notHealthy}, maxUnhealthy: ${String(field(mhc, "spec", "maxUnhealthy") ?? "100%")})`,
              },
          clock.now(),
        );
        o.status = status;
      },
      { subresource: "status" },
    );
    const next = Math.min(...verdicts.map((v) => v.recheckAt ?? Infinity));
    if (Number.isFinite(next)) queue.addAfter(key, Math.max(0, next - now) + 1);
  }

  const all = () => {
    for (const m of store.list(MACHINE_HEALTH_CHECK.apiVersion, MACHINE_HEALTH_CHECK.kind)) {
      queue.add(`${m.metadata.namespace}/${m.metadata.name}`);
    }
  };
  const unsubscribe = store.subscribe(({ object }) => {
    if (isKind(object, MACHINE_HEALTH_CHECK))
      queue.add(`${object.metadata.namespace}/${object.metadata.name}`);
    else if (isKind(object, K.machine) || isKind(object, K.node)) all();
  });
  all();
  return unsubscribe;
}
