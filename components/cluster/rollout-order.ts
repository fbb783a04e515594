/**
 * Ordered rollouts between pools: a pool declared to roll out after others (`rollOutAfter` of its
 * MachineConfigPool) is paused before the node configuration the program declares for it is applied,
 * and unpaused once the waiters of the pools before it are done (provider/waiting/pool-hold.ts). The
 * steps hang off each node configuration object of the pool: every pause of the pool in a run comes
 * before any of its resumes, so that no pause stops a rollout a resume started; a failure in an earlier
 * pool leaves the later one paused, which its pause said it would.
 */
import * as pulumi from "@pulumi/pulumi";
import { InputError, within } from "../../builders/errors";
import { isDnsSubdomain } from "../../primitives/names";
import { PoolHold } from "../../provider/dynamic/pool-hold";
import { child } from "../declared";
import { thisRun } from "./preview-run";
import type { Waiting } from "./wait";

/**
 * Registers that `pool` rolls out after `after`, checked: pool names, not the pool itself, no cycle
 * among the run's orders, not beside a declared `paused` (the pool would stay paused).
 */
export function declareRolloutOrder(pool: string, after: unknown, paused: unknown): void {
  if (!Array.isArray(after) || after.some((p) => typeof p !== "string" || !isDnsSubdomain(p)))
    throw new InputError(
      "rollOutAfter",
      `must list pool names, e.g. ["worker"], got ${JSON.stringify(after)}`,
    );
  if (after.includes(pool)) throw new InputError("rollOutAfter", `${pool} cannot roll out after itself`);
  if (paused !== undefined)
    throw new InputError(
      "rollOutAfter",
      "leave paused out with rollOutAfter: the library pauses and unpauses the pool around each rollout",
    );
  const { rolloutOrder } = thisRun();
  const reaches = (from: string, seen: Set<string>): boolean =>
    from === pool ||
    (!seen.has(from) && (rolloutOrder.get(from) ?? []).some((p) => reaches(p, new Set([...seen, from]))));
  const loop = (after as string[]).find((p) => reaches(p, new Set()));
  if (loop !== undefined)
    throw new InputError("rollOutAfter", `${loop} already rolls out after ${pool}: the order has a cycle`);
  rolloutOrder.set(pool, after as string[]);
}

/** The pools `pool` rolls out after in this run; undefined when it has no order. */
export function rollsOutAfter(pool: string): string[] | undefined {
  return thisRun().rolloutOrder.get(pool);
}

/**
 * The pools an object for `pool` reaches that roll out after others: the pool itself, and for `worker`
 * the custom pools of the run with an order, which inherit the worker configs (a MachineConfigPool's
 * selector is `role In [worker, <name>]`).
 */
function heldPools(pool: string): Array<{ pool: string; after: string[] }> {
  const { rolloutOrder } = thisRun();
  const reached =
    pool === "worker" ? ["worker", ...[...rolloutOrder.keys()].filter((p) => p !== "worker")] : [pool];
  return reached.flatMap((p) => {
    const after = rolloutOrder.get(p);
    return after ? [{ pool: p, after }] : [];
  });
}

/**
 * What the resume of `pool` waits for: the waiters of the pools before it (a canary's included, which
 * its parent's objects declare), and every pause of it. Only those waiters are awaited: another's may
 * itself wait for this resume.
 */
function before(pool: string, after: string[]): pulumi.Output<pulumi.Resource[]> {
  const rollouts = [...thisRun().rollouts];
  return pulumi.all(rollouts.map((r) => r.pool)).apply((names) => {
    const waiters = rollouts.flatMap((r, i) => (after.includes(names[i]) && r.waiter ? [r.waiter] : []));
    return pulumi
      .all([
        pulumi.all(waiters),
        pulumi.all(rollouts.map((r) => r.pauses)),
        pulumi.all(rollouts.map((r) => r.followers ?? [])),
      ])
      .apply(([done, pauses, followers]) => [
        ...done,
        ...followers.flat().flatMap((f) => (after.includes(f.pool) ? [f.resource] : [])),
        ...pauses.flat().flatMap((h) => (h.pool === pool ? [h.resource] : [])),
      ]);
  });
}

/**
 * Registers the canary pool `canary` of `parent`: the parent rolls out after it (beside the pools it
 * already follows), and each object of the parent gets a waiter on the canary, which the parent's
 * resume waits for. Checked: one canary of a name per run.
 */
export function declareCanary(canary: string, parent: string): void {
  const { canaries, poolNames } = thisRun();
  if (canaries.has(canary))
    throw new InputError("name", `another CanaryPool of the program is named ${canary}`);
  if (poolNames.has(canary))
    throw new InputError(
      "name",
      `${poolNames.get(canary)} declares pool ${canary}: a canary needs a pool of its own`,
    );
  // The canary's name is what orders the pools: a cycle is reported there.
  within(
    () => "name",
    () => declareRolloutOrder(parent, [...(rollsOutAfter(parent) ?? []), canary], undefined),
  );
  canaries.set(canary, parent);
}

/**
 * Registers a pool the program declares by a plain name (`by`, the component), at `path`: one a
 * CanaryPool of the run already takes is refused.
 */
export function declarePoolName(pool: string, by: string, path: string): void {
  const { canaries, poolNames } = thisRun();
  if (canaries.has(pool))
    throw new InputError(path, `a CanaryPool of the program is named ${pool}: it has pool ${pool}`);
  poolNames.set(pool, by);
}

/** Registers a wait of `pool` (the canary's nodes in place) that the pools after it wait for. */
export function rolloutOf(pool: string, waiter: pulumi.Output<pulumi.Resource>): void {
  thisRun().rollouts.push({ pool: pulumi.output(pool), pauses: pulumi.output([]), waiter });
}

/** The steps of one node configuration object; none when no pool it reaches has an order. */
export interface OrderedSteps {
  /** What the object is applied after: the pauses of the pools it reaches. */
  pause: pulumi.Output<pulumi.Resource[]>;
  /**
   * What the object's waiter waits after: its own pool's resume, once given the object; `rollOut`
   * declares the waiter of another pool it reaches, after that pool's resume.
   */
  resume(
    object: pulumi.Input<pulumi.Resource>,
    rollOut: (pool: string, after: pulumi.Input<pulumi.Resource>[]) => pulumi.Output<pulumi.Resource>,
  ): pulumi.Output<pulumi.Resource[]>;
  /** Registers the object's waiter, which the resumes of later pools wait for. */
  waiter(rollout: pulumi.Output<pulumi.Resource>): void;
}

/**
 * The pauses and resumes of the object `name` of `pool`, for each pool it reaches that rolls out after
 * others; the object's waiter is registered either way, for the pools after its own.
 */
export function orderedSteps(
  name: string,
  pool: pulumi.Output<string>,
  contentHash: pulumi.Output<string>,
  waits: Waiting,
  after: pulumi.Input<pulumi.Input<pulumi.Resource>[]>,
): OrderedSteps {
  const run = thisRun();
  const held = pool.apply((p) => heldPools(p).map((h) => ({ ...h, own: h.pool === p })));
  type Held = { pool: string; after: string[]; own: boolean };
  const step = (
    kind: "pause" | "resume",
    which: (h: Held) => boolean,
    dependsOn: (h: Held) => pulumi.Input<pulumi.Input<pulumi.Resource>[]>,
  ) =>
    held.apply((list) =>
      pulumi.all(
        list
          .filter(which)
          .map((h) =>
            child(
              PoolHold,
              `${name}-${h.pool}-${kind}`,
              { kubeconfig: waits.kubeconfig, pool: h.pool, after: h.after, step: kind, contentHash },
              waits.options(dependsOn(h)),
            ).apply((resource) => ({ pool: h.pool, resource: resource as pulumi.Resource })),
          ),
      ),
    );
  const pauses = step(
    "pause",
    () => true,
    () => after,
  );
  // The object's waiters on the canaries of its pool, declared once the object is given (resume).
  type Follower = { pool: string; resource: pulumi.Resource };
  let follow: (followers: pulumi.Output<Follower[]>) => void = () => undefined;
  const followers = pulumi
    .output(new Promise<pulumi.Output<Follower[]>>((resolve) => (follow = resolve)))
    .apply((f) => f);
  const entry: (typeof run.rollouts)[number] = { pool, pauses, followers };
  run.rollouts.push(entry);
  const resources = (steps: typeof pauses) => steps.apply((list) => list.map((h) => h.resource));
  return {
    pause: resources(pauses),
    resume: (object, rollOut) => {
      // A canary pool inherits the object without an order of its own: its waiter follows the object,
      // and the parent's resume waits for it.
      follow(
        pool.apply((p) =>
          pulumi.all(
            [...run.canaries]
              .filter(([, parent]) => parent === p)
              .map(([canary]) => rollOut(canary, [object]).apply((resource) => ({ pool: canary, resource }))),
          ),
        ),
      );
      const resume = (which: (h: Held) => boolean) =>
        step("resume", which, (h) =>
          pulumi.all([object, before(h.pool, h.after)]).apply(([x, b]) => [x, ...b]),
        );
      // Another pool the object reaches (a custom pool after `worker`) gets a waiter of its own after
      // its resume, apart from this object's waiter, which that resume waits for.
      resume((h) => !h.own).apply((list) => list.forEach((h) => rollOut(h.pool, [h.resource])));
      return resources(resume((h) => h.own));
    },
    waiter: (rollout) => {
      entry.waiter = rollout;
    },
  };
}
