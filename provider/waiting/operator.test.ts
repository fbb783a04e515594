import { strict as assert } from "node:assert";
import { KubeObject } from "./kinds";
import { approvablePlan, evaluateOperatorInstall, OperatorObservation } from "./operator";
import { judgePersistence, PERSISTENCE_MS, recordSightings, Sightings } from "./persistence";

const PIN = "wmco.v10.17.0";
const NEXT = "wmco.v10.18.0";
const target = { namespace: "ns", subscription: "wmco", startingCSV: PIN };

function subscription(
  status: Record<string, unknown>,
  approval = "Manual",
  spec: Record<string, unknown> = {},
): KubeObject {
  return {
    metadata: { name: "wmco", namespace: "ns", uid: "sub-uid" },
    spec: {
      installPlanApproval: approval,
      startingCSV: PIN,
      name: "windows-machine-config-operator",
      source: "redhat-operators",
      sourceNamespace: "openshift-marketplace",
      ...spec,
    },
    status,
  };
}

function plan(
  name: string,
  csvs: string[],
  owner = "wmco",
  approved = false,
  phase = "RequiresApproval",
): KubeObject {
  return {
    metadata: {
      name,
      namespace: "ns",
      ownerReferences: [
        {
          apiVersion: "operators.coreos.com/v1alpha1",
          kind: "Subscription",
          name: owner,
          uid: owner === "wmco" ? "sub-uid" : "x",
        },
      ],
    },
    spec: { approved, approval: "Manual", clusterServiceVersionNames: csvs },
    status: { phase },
  };
}

const csv = (name: string, phase: string, extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name, namespace: "ns" },
  status: { phase, ...extra },
});

const obs = (o: Partial<OperatorObservation>): OperatorObservation => ({
  subscription: undefined,
  installPlans: [],
  csvs: [],
  ...o,
});

const condition = (type: string, message: string, reason = "Reason") => ({
  type,
  status: "True",
  reason,
  message,
});

/** Evaluates as the waiter does over time: sightings recorded after each evaluation. */
function overTime(o: OperatorObservation, t = target) {
  const since: Sightings = {};
  return (nowMs: number) => {
    const e = evaluateOperatorInstall(t, { ...o, since, nowMs });
    recordSightings(since, e.problems, nowMs);
    return e;
  };
}

describe("operator predicate", () => {
  it("approves only the Subscription's own plan for the pinned CSV", () => {
    const sub = subscription({ state: "UpgradePending", installPlanRef: { name: "install-b" } });
    const plans = [
      plan("install-a", [NEXT]),
      plan("install-other", [PIN], "someone-else"),
      plan("install-b", [PIN]),
    ];
    const e = evaluateOperatorInstall(target, obs({ subscription: sub, installPlans: plans }));
    assert.equal(e.state, "waiting");
    assert.equal(e.approve, "install-b");
    assert.equal(approvablePlan(sub, plans.slice(0, 2), PIN), undefined);
    assert.equal(approvablePlan(sub, [plan("install-b", [PIN], "wmco", true)], PIN), undefined);
    const none = evaluateOperatorInstall(target, obs({ subscription: sub, installPlans: plans.slice(0, 2) }));
    assert.equal(none.state, "waiting");
    assert.equal(none.approve, undefined);
    assert.match(
      none.message,
      /waiting for an InstallPlan for wmco.v10.17.0; not approving install-a \(wmco.v10.18.0\)/,
    );
  });

  it("refuses to guess under Manual approval without a pinned CSV", () => {
    const e = evaluateOperatorInstall(
      { namespace: "ns", subscription: "wmco" },
      obs({ subscription: subscription({}), installPlans: [plan("install-a", [NEXT])] }),
    );
    assert.equal(e.state, "failed");
    assert.match(e.message, /approve InstallPlan install-a yourself or pin startingCSV/);
  });

  it("needs the installed CSV, found by name, to have Succeeded, not just AtLatestKnown", () => {
    const sub = subscription({ state: "AtLatestKnown", installedCSV: PIN, currentCSV: PIN });
    const installing = evaluateOperatorInstall(
      target,
      obs({ subscription: sub, csvs: [csv(PIN, "Installing")] }),
    );
    assert.equal(installing.state, "waiting");
    assert.match(installing.message, /wmco.v10.17.0 Installing/);
    assert.equal(installing.result?.phase, "Installing");
    const done = evaluateOperatorInstall(target, obs({ subscription: sub, csvs: [csv(PIN, "Succeeded")] }));
    assert.equal(done.state, "done");
    assert.deepEqual(done.result, { installedCSV: PIN, phase: "Succeeded" });
    // Other operators of the namespace have succeeded: none of them is ours.
    const others = [csv("other.v1", "Succeeded"), csv("another.v2", "Succeeded"), csv(PIN, "Installing")];
    assert.equal(evaluateOperatorInstall(target, obs({ subscription: sub, csvs: others })).state, "waiting");
    const absent = evaluateOperatorInstall(target, obs({ subscription: sub, csvs: others.slice(0, 2) }));
    assert.equal(absent.state, "waiting");
    assert.match(absent.message, /wmco.v10.17.0 not created yet/);
  });

  it("takes an upgrade in flight (currentCSV ahead of installedCSV) as not installed yet", () => {
    // catalog/operator.go ensureSubscriptionCSVState: installedCSV moves only once the new CSV exists.
    const automatic = { namespace: "ns", subscription: "wmco" };
    const sub = subscription(
      { state: "UpgradePending", installedCSV: PIN, currentCSV: NEXT, installPlanRef: { name: "install-2" } },
      "Automatic",
    );
    const e = evaluateOperatorInstall(automatic, obs({ subscription: sub, csvs: [csv(PIN, "Succeeded")] }));
    assert.equal(e.state, "waiting");
    assert.match(e.message, /upgrade from wmco.v10.17.0 to wmco.v10.18.0 in flight/);
    const after = subscription({ state: "AtLatestKnown", installedCSV: NEXT, currentCSV: NEXT }, "Automatic");
    const done = evaluateOperatorInstall(
      automatic,
      obs({ subscription: after, csvs: [csv(PIN, "Replacing"), csv(NEXT, "Succeeded")] }),
    );
    assert.equal(done.state, "done");
    assert.equal(done.result?.installedCSV, NEXT);
    // Under Manual approval an upgrade that awaits a person's approval is not in flight.
    const offered = subscription({
      state: "UpgradePending",
      installedCSV: PIN,
      currentCSV: NEXT,
      installPlanRef: { name: "install-2" },
    });
    const waitsForAPerson = evaluateOperatorInstall(
      automatic,
      obs({
        subscription: offered,
        installPlans: [plan("install-2", [NEXT])],
        csvs: [csv(PIN, "Succeeded")],
      }),
    );
    assert.equal(waitsForAPerson.state, "done");
    const approvedByAPerson = evaluateOperatorInstall(
      automatic,
      obs({
        subscription: offered,
        installPlans: [plan("install-2", [NEXT], "wmco", true, "Installing")],
        csvs: [csv(PIN, "Succeeded")],
      }),
    );
    assert.equal(approvedByAPerson.state, "waiting");
    const unread = evaluateOperatorInstall(
      automatic,
      obs({ subscription: offered, csvs: [csv(PIN, "Succeeded")] }),
    );
    assert.equal(unread.state, "done");
  });

  it("with a pinned CSV under Manual approval, moving the pin approves the plan for the new pin and finishes when it succeeds", () => {
    const moved = { ...target, startingCSV: NEXT };
    const offered = subscription({
      state: "UpgradePending",
      installedCSV: PIN,
      currentCSV: NEXT,
      installPlanRef: { name: "install-2" },
    });
    const plans = [
      plan("install-1", [PIN], "wmco", true, "Complete"),
      plan("install-3", ["wmco.v10.19.0"]),
      plan("install-2", [NEXT]),
    ];
    const approve = evaluateOperatorInstall(
      moved,
      obs({ subscription: offered, installPlans: plans, csvs: [csv(PIN, "Succeeded")] }),
    );
    assert.equal(approve.state, "waiting");
    assert.equal(approve.approve, "install-2");
    // The old pin is still done for a wait that pins it.
    assert.equal(
      evaluateOperatorInstall(
        target,
        obs({ subscription: offered, installPlans: plans, csvs: [csv(PIN, "Succeeded")] }),
      ).state,
      "done",
    );
    const executing = [plans[0], plans[1], plan("install-2", [NEXT], "wmco", true, "Installing")];
    const inFlight = evaluateOperatorInstall(
      moved,
      obs({ subscription: offered, installPlans: executing, csvs: [csv(PIN, "Succeeded")] }),
    );
    assert.equal(inFlight.state, "waiting");
    assert.equal(inFlight.approve, undefined);
    assert.match(inFlight.message, /upgrade from wmco.v10.17.0 to wmco.v10.18.0 in flight/);
    const installed = subscription({ state: "AtLatestKnown", installedCSV: NEXT, currentCSV: NEXT });
    const installing = evaluateOperatorInstall(
      moved,
      obs({ subscription: installed, installPlans: executing, csvs: [csv(NEXT, "Installing")] }),
    );
    assert.equal(installing.state, "waiting");
    const done = evaluateOperatorInstall(
      moved,
      obs({ subscription: installed, installPlans: executing, csvs: [csv(NEXT, "Succeeded")] }),
    );
    assert.equal(done.state, "done");
    assert.equal(done.result?.installedCSV, NEXT);
    // A pin OLM offers no plan for is waited for, naming what is installed.
    const elsewhere = evaluateOperatorInstall(
      { ...target, startingCSV: "wmco.v11.0.0" },
      obs({ subscription: installed, installPlans: executing, csvs: [csv(NEXT, "Succeeded")] }),
    );
    assert.equal(elsewhere.state, "waiting");
    assert.match(
      elsewhere.message,
      /waiting for an InstallPlan for wmco.v11.0.0 \(installed: wmco.v10.18.0\)/,
    );
  });

  it("fails at once on a failed InstallPlan, which OLM does not run again", () => {
    const byCondition = evaluateOperatorInstall(
      target,
      obs({
        subscription: subscription({ conditions: [condition("InstallPlanFailed", "bundle unpack failed")] }),
      }),
    );
    assert.equal(byCondition.state, "failed");
    assert.match(byCondition.message, /operator ns\/wmco: InstallPlanFailed: bundle unpack failed/);
    const sub = subscription({ installPlanRef: { name: "install-1" } });
    const failedPlan = { ...plan("install-1", [PIN], "wmco", true, "Failed") };
    (failedPlan.status as Record<string, unknown>).message = "api error";
    const byPlan = evaluateOperatorInstall(target, obs({ subscription: sub, installPlans: [failedPlan] }));
    assert.equal(byPlan.state, "failed");
    assert.match(byPlan.message, /InstallPlan install-1 failed: api error/);
  });

  describe("what OLM retries fails only when it concerns this operator and persists", () => {
    it("ResolutionFailed set and cleared while catalogs start is not a failure", () => {
      const failing = subscription({
        conditions: [
          condition(
            "ResolutionFailed",
            "failed to populate resolver cache from source redhat-operators/openshift-marketplace: connection refused",
            "ErrorPreventedResolution",
          ),
        ],
      });
      const since: Sightings = {};
      const at = (sub: KubeObject, nowMs: number) => {
        const e = evaluateOperatorInstall(target, obs({ subscription: sub, since, nowMs }));
        recordSightings(since, e.problems, nowMs);
        return e;
      };
      const first = at(failing, 0);
      assert.equal(first.state, "waiting");
      assert.equal(first.recheckMs, PERSISTENCE_MS);
      assert.match(
        first.message,
        /ResolutionFailed: failed to populate resolver cache .* \(for 0m0s; retried, final after 5m0s\)/,
      );
      assert.equal(at(failing, PERSISTENCE_MS - 1).state, "waiting");
      assert.equal(at(failing, PERSISTENCE_MS - 1).recheckMs, 1);
      // Cleared, then set again: the count starts over.
      assert.equal(at(subscription({ conditions: [] }), PERSISTENCE_MS - 1).state, "waiting");
      assert.equal(at(failing, PERSISTENCE_MS).state, "waiting");
      assert.equal(at(failing, 2 * PERSISTENCE_MS - 1).state, "waiting");
      const persisted = at(failing, 2 * PERSISTENCE_MS);
      assert.equal(persisted.state, "failed");
      assert.match(
        persisted.message,
        /operator ns\/wmco: ResolutionFailed: failed to populate resolver cache .* \(persisted 5m0s, past the 5m0s allowed for retries\)/,
      );
    });

    it("unsatisfiable constraints concern this operator only when they name it", () => {
      // catalog/operator.go syncResolvingNamespace: one condition on every Subscription of the namespace.
      const about = (message: string) =>
        overTime(
          obs({
            subscription: subscription({
              conditions: [condition("ResolutionFailed", message, "ConstraintsNotSatisfiable")],
            }),
          }),
        );
      const other = about(
        "constraints not satisfiable: no operators found in package cert-manager in the catalog referenced by subscription cert-manager",
      );
      assert.equal(other(0).state, "waiting");
      const late = other(PERSISTENCE_MS);
      assert.equal(late.state, "waiting");
      assert.deepEqual(late.problems, []);
      assert.match(
        late.message,
        /resolution failed for another Subscription: constraints not satisfiable: no operators found in package cert-manager/,
      );
      for (const named of [
        "subscription wmco requires an operator that is not found",
        "no operators found in package windows-machine-config-operator",
        "no operators found from catalog redhat-operators",
      ]) {
        const mine = about(`constraints not satisfiable: ${named}`);
        assert.equal(mine(0).state, "waiting");
        assert.equal(mine(PERSISTENCE_MS).state, "failed", named);
      }
    });

    it("CatalogSourcesUnhealthy about another catalog source is not a failure; about its own, it is once it persists", () => {
      const health = (own: boolean) => [
        { catalogSourceRef: { name: "redhat-operators", namespace: "openshift-marketplace" }, healthy: own },
        {
          catalogSourceRef: { name: "community-operators", namespace: "openshift-marketplace" },
          healthy: false,
        },
      ];
      // catalog/subscription/state.go UpdateHealth: True when any source is unhealthy, message kept.
      const unhealthy = (own: boolean, message: string) =>
        subscription({
          catalogHealth: health(own),
          conditions: [condition("CatalogSourcesUnhealthy", message, "UnhealthyCatalogSourceFound")],
        });
      const others = overTime(
        obs({ subscription: unhealthy(true, "all available catalogsources are healthy") }),
      );
      assert.equal(others(0).state, "waiting");
      const late = others(2 * PERSISTENCE_MS);
      assert.equal(late.state, "waiting");
      assert.match(late.message, /another catalog source is unhealthy/);
      const own = overTime(
        obs({
          subscription: unhealthy(
            false,
            "targeted catalogsource openshift-marketplace/redhat-operators unhealthy",
          ),
        }),
      );
      assert.equal(own(0).state, "waiting");
      const failed = own(PERSISTENCE_MS);
      assert.equal(failed.state, "failed");
      assert.match(
        failed.message,
        /CatalogSourcesUnhealthy: catalog source openshift-marketplace\/redhat-operators: targeted catalogsource openshift-marketplace\/redhat-operators unhealthy/,
      );
      // Its own source missing from the health list (deleted) concerns it too.
      const missing = overTime(
        obs({
          subscription: subscription({
            catalogHealth: health(true).slice(1),
            conditions: [
              condition(
                "CatalogSourcesUnhealthy",
                "targeted catalogsource openshift-marketplace/redhat-operators missing",
              ),
            ],
          }),
        }),
      );
      missing(0);
      assert.equal(missing(PERSISTENCE_MS).state, "failed");
      // No catalog source at all: OLM lists none and keeps its own message.
      const none = overTime(
        obs({
          subscription: subscription({
            catalogHealth: [],
            conditions: [
              condition(
                "CatalogSourcesUnhealthy",
                "dependency resolution requires at least one catalogsource",
              ),
            ],
          }),
        }),
      );
      none(0);
      assert.equal(none(PERSISTENCE_MS).state, "failed");
      const unlisted = overTime(
        obs({ subscription: subscription({ conditions: [condition("CatalogSourcesUnhealthy", "")] }) }),
      );
      unlisted(0);
      assert.match(
        unlisted(PERSISTENCE_MS).message,
        /catalog source openshift-marketplace\/redhat-operators: Reason/,
      );
    });

    it("a Failed CSV, which OLM re-checks, fails once it persists, naming its reason", () => {
      // olm/operator.go transitionCSVState, case CSVPhaseFailed: back to Pending once the cause is gone.
      const sub = subscription({ state: "AtLatestKnown", installedCSV: PIN, currentCSV: PIN });
      const failedCsv = csv(PIN, "Failed", {
        reason: "InstallCheckFailed",
        message: "deployment not available",
      });
      const since: Sightings = {};
      const at = (c: KubeObject, nowMs: number) => {
        const e = evaluateOperatorInstall(target, obs({ subscription: sub, csvs: [c], since, nowMs }));
        recordSightings(since, e.problems, nowMs);
        return e;
      };
      assert.equal(at(failedCsv, 0).state, "waiting");
      assert.equal(at(csv(PIN, "Pending"), 60_000).state, "waiting");
      assert.equal(at(failedCsv, 120_000).state, "waiting");
      assert.equal(at(failedCsv, 120_000 + PERSISTENCE_MS - 1).state, "waiting");
      const failed = at(failedCsv, 120_000 + PERSISTENCE_MS);
      assert.equal(failed.state, "failed");
      assert.equal(
        failed.message,
        "operator ns/wmco: ClusterServiceVersion wmco.v10.17.0 failed (InstallCheckFailed): deployment not available (persisted 5m0s, past the 5m0s allowed for retries)",
      );
      // The upgrade's CSV failing counts as well.
      const upgrade = subscription(
        { state: "UpgradePending", installedCSV: PIN, currentCSV: NEXT },
        "Automatic",
      );
      const e = evaluateOperatorInstall(
        { namespace: "ns", subscription: "wmco" },
        obs({
          subscription: upgrade,
          csvs: [csv(PIN, "Succeeded"), csv(NEXT, "Failed")],
          since: { [`csv/${NEXT}`]: 0 },
          nowMs: PERSISTENCE_MS,
        }),
      );
      assert.equal(e.state, "failed");
      assert.match(e.message, /ClusterServiceVersion wmco.v10.18.0 failed: no message/);
    });

    it("an installed operator is done whatever the catalogs say", () => {
      const sub = subscription({
        state: "AtLatestKnown",
        installedCSV: PIN,
        currentCSV: PIN,
        conditions: [
          condition(
            "CatalogSourcesUnhealthy",
            "targeted catalogsource openshift-marketplace/redhat-operators unhealthy",
          ),
        ],
      });
      const e = evaluateOperatorInstall(
        target,
        obs({
          subscription: sub,
          csvs: [csv(PIN, "Succeeded")],
          since: { CatalogSourcesUnhealthy: 0 },
          nowMs: PERSISTENCE_MS,
        }),
      );
      assert.equal(e.state, "done");
    });
  });

  it("reports its steps while resolving, planning and installing", () => {
    const automatic = { namespace: "ns", subscription: "wmco" };
    const none = evaluateOperatorInstall(automatic, obs({}));
    assert.deepEqual(
      [none.state, none.message, none.done, none.total],
      ["waiting", "operator ns/wmco: the Subscription does not exist yet", 0, 3],
    );
    const resolving = evaluateOperatorInstall(
      automatic,
      obs({ subscription: subscription({}, "Automatic") }),
    );
    assert.deepEqual(
      [resolving.message, resolving.done, resolving.total, resolving.result],
      ["operator ns/wmco: resolving", 0, 3, undefined],
    );
    const known = evaluateOperatorInstall(
      automatic,
      obs({ subscription: subscription({ state: "UpgradePending", currentCSV: PIN }, "Automatic") }),
    );
    assert.equal(known.message, "operator ns/wmco: resolving (UpgradePending), CSV wmco.v10.17.0");
    const planned = evaluateOperatorInstall(
      automatic,
      obs({
        subscription: subscription({ installPlanRef: { name: "install-1" }, currentCSV: PIN }, "Automatic"),
      }),
    );
    assert.deepEqual(
      [planned.message, planned.done],
      ["operator ns/wmco: InstallPlan install-1 pending, CSV wmco.v10.17.0", 1],
    );
    const executing = evaluateOperatorInstall(
      automatic,
      obs({
        subscription: subscription({ installPlanRef: { name: "install-1" } }),
        installPlans: [plan("install-1", [PIN], "wmco", true, "Installing")],
      }),
    );
    assert.equal(executing.message, "operator ns/wmco: InstallPlan install-1 Installing");
    const installing = evaluateOperatorInstall(
      automatic,
      obs({
        subscription: subscription({ installedCSV: PIN, currentCSV: PIN }, "Automatic"),
        csvs: [csv(PIN, "Installing")],
      }),
    );
    assert.deepEqual([installing.done, installing.total], [2, 3]);
    const done = evaluateOperatorInstall(
      automatic,
      obs({
        subscription: subscription({ installedCSV: PIN, currentCSV: PIN }, "Automatic"),
        csvs: [csv(PIN, "Succeeded")],
      }),
    );
    assert.deepEqual(
      [done.message, done.done, done.total],
      ["operator ns/wmco: wmco.v10.17.0 Succeeded", 3, 3],
    );
  });

  it("approves no plan of a Subscription of the same name but another uid, nor one without CSV names", () => {
    const sub = subscription({});
    const recreated = plan("install-old", [PIN]);
    recreated.metadata.ownerReferences![0].uid = "uid-of-a-deleted-subscription";
    const bare = plan("install-bare", []);
    delete (bare.spec as Record<string, unknown>).clusterServiceVersionNames;
    assert.equal(approvablePlan(sub, [recreated, bare], PIN), undefined);
    const noUid = plan("install-nouid", [PIN]);
    noUid.metadata.ownerReferences = [{ ...noUid.metadata.ownerReferences![0], uid: "" }];
    assert.equal(approvablePlan(sub, [noUid], PIN)?.metadata.name, "install-nouid");
  });

  it("approves only a plan this Subscription owns: not another Subscription's, nor one it does not own as a Subscription", () => {
    // OLM sets the Subscription as owner of the InstallPlans it creates for it (catalog/operator.go,
    // ensureInstallPlan); approving another one installs another operator.
    const sub = subscription({});
    const others = plan("install-others", [PIN], "cert-manager");
    others.metadata.ownerReferences![0].uid = "";
    const notAsSubscription = plan("install-group", [PIN]);
    notAsSubscription.metadata.ownerReferences![0].kind = "OperatorGroup";
    assert.equal(approvablePlan(sub, [others, notAsSubscription], PIN), undefined);
    const shared = plan("install-shared", [PIN]);
    shared.metadata.ownerReferences!.push({ ...others.metadata.ownerReferences![0] });
    assert.equal(
      approvablePlan(sub, [others, notAsSubscription, shared], PIN)?.metadata.name,
      "install-shared",
    );
  });

  it("judges CatalogSourcesUnhealthy by the health of its own source, matched by name and namespace", () => {
    // catalog/subscription/state.go catalogHealthState.UpdateHealth lists each source by its reference.
    const sub = subscription({
      catalogHealth: [
        { healthy: false },
        {
          catalogSourceRef: { name: "community-operators", namespace: "openshift-marketplace" },
          healthy: false,
        },
        { catalogSourceRef: { name: "redhat-operators", namespace: "elsewhere" }, healthy: false },
        { catalogSourceRef: { name: "redhat-operators", namespace: "openshift-marketplace" }, healthy: true },
      ],
      conditions: [
        condition("CatalogSourcesUnhealthy", "targeted catalogsource elsewhere/redhat-operators unhealthy"),
      ],
    });
    const at = overTime(obs({ subscription: sub }));
    at(0);
    const late = at(2 * PERSISTENCE_MS);
    assert.equal(late.state, "waiting");
    assert.deepEqual(late.problems, []);
  });

  it("takes a ResolutionFailed that is not about constraints as this operator's, naming nothing of it", () => {
    // catalog/operator.go syncResolvingNamespace: an error that prevented resolution stops every
    // Subscription of the namespace.
    const at = overTime(
      obs({
        subscription: subscription({
          conditions: [
            condition(
              "ResolutionFailed",
              "error using catalog: connection refused",
              "ErrorPreventedResolution",
            ),
          ],
        }),
      }),
    );
    assert.equal(at(0).state, "waiting");
    assert.equal(at(PERSISTENCE_MS).state, "failed");
  });

  it("under Manual approval without a pin, an installed operator's pending upgrade is not a reason to fail", () => {
    const e = evaluateOperatorInstall(
      { namespace: "ns", subscription: "wmco" },
      obs({
        subscription: subscription({
          installedCSV: PIN,
          currentCSV: NEXT,
          installPlanRef: { name: "install-2" },
        }),
        installPlans: [plan("install-2", [NEXT])],
        csvs: [csv(PIN, "Installing")],
      }),
    );
    assert.equal(e.state, "waiting");
    assert.equal(e.message, "operator ns/wmco: wmco.v10.17.0 Installing");
  });

  it("names a failed InstallPlan by its condition's reason, or its Installed condition, when it has no message", () => {
    const byReason = evaluateOperatorInstall(
      target,
      obs({
        subscription: subscription({
          conditions: [
            { type: "InstallPlanFailed", status: "True", reason: "InstallPlanFailed", message: "" },
          ],
        }),
      }),
    );
    assert.equal(byReason.message, "operator ns/wmco: InstallPlanFailed: InstallPlanFailed");
    const failedPlan = plan("install-1", [PIN], "wmco", true, "Failed");
    (failedPlan.status as Record<string, unknown>).conditions = [
      { type: "Installed", status: "False", message: "no operator group" },
    ];
    const byInstalled = evaluateOperatorInstall(
      target,
      obs({
        subscription: subscription({ installPlanRef: { name: "install-1" } }),
        installPlans: [failedPlan],
      }),
    );
    assert.equal(byInstalled.message, "operator ns/wmco: InstallPlan install-1 failed: no operator group");
    const notFailed = evaluateOperatorInstall(
      target,
      obs({ subscription: subscription({ conditions: [{ type: "InstallPlanFailed", status: "False" }] }) }),
    );
    assert.equal(notFailed.state, "waiting");
  });

  it("judges persistence from the first sighting without a break", () => {
    const problems = [
      { key: "a", message: "A" },
      { key: "b", message: "B" },
    ];
    const since: Sightings = {};
    recordSightings(since, problems, 10);
    recordSightings(since, problems, 20);
    assert.deepEqual(since, { a: 10, b: 10 });
    recordSightings(since, problems.slice(1), 30);
    assert.deepEqual(since, { b: 10 });
    const judged = judgePersistence(problems, { a: 1000, b: 0 }, 1000 + 60_000);
    assert.equal(judged.recheckMs, PERSISTENCE_MS - 61_000);
    assert.deepEqual(judged.pending, [
      "A (for 1m0s; retried, final after 5m0s)",
      "B (for 1m1s; retried, final after 5m0s)",
    ]);
    assert.deepEqual(judged.persisted, []);
    const both = judgePersistence(problems, { a: 0, b: 0 }, PERSISTENCE_MS + 90_500);
    assert.deepEqual(both.persisted, [
      "A (persisted 6m30s, past the 5m0s allowed for retries)",
      "B (persisted 6m30s, past the 5m0s allowed for retries)",
    ]);
    assert.equal(both.recheckMs, undefined);
    assert.equal(PERSISTENCE_MS, 300_000);
  });
});

/** What a user reads while an operator installs, and what the waiter records, in every branch. */
describe("operator predicate: each message a user reads", () => {
  const auto = { namespace: "ns", subscription: "wmco", startingCSV: PIN };

  it("says the Subscription is missing, and what failed when a plan failed without a word", () => {
    assert.deepEqual(evaluateOperatorInstall(target, obs({})), {
      state: "waiting",
      message: "operator ns/wmco: the Subscription does not exist yet",
      done: 0,
      total: 3,
      problems: [],
    });
    const silent = { type: "InstallPlanFailed", status: "True", reason: "", message: "" };
    assert.deepEqual(
      evaluateOperatorInstall(target, obs({ subscription: subscription({ conditions: [silent] }) })),
      {
        state: "failed",
        message: "operator ns/wmco: InstallPlanFailed: no message",
        problems: [],
      },
    );
    const failedPlan = plan("install-1", [PIN], "wmco", true, "Failed");
    const e = evaluateOperatorInstall(
      target,
      obs({
        subscription: subscription({ installPlanRef: { name: "install-1" } }),
        installPlans: [failedPlan],
      }),
    );
    assert.equal(e.message, "operator ns/wmco: InstallPlan install-1 failed: no message");
  });

  it("under Automatic approval, a pin is no reason to wait for a plan: the plan's phase and the CSV are named", () => {
    const e = evaluateOperatorInstall(
      auto,
      obs({
        subscription: subscription({ currentCSV: NEXT, installPlanRef: { name: "install-1" } }, "Automatic"),
        installPlans: [plan("install-1", [NEXT], "wmco", true, "Installing")],
      }),
    );
    assert.deepEqual(e, {
      state: "waiting",
      message: "operator ns/wmco: InstallPlan install-1 Installing, CSV wmco.v10.18.0",
      done: 1,
      total: 3,
      problems: [],
    });
    const notCreated = evaluateOperatorInstall(
      auto,
      obs({ subscription: subscription({ installedCSV: NEXT, currentCSV: NEXT }, "Automatic") }),
    );
    assert.equal(notCreated.message, "operator ns/wmco: wmco.v10.18.0 not created yet");
    assert.deepEqual(notCreated.result, { installedCSV: NEXT, phase: "" });
  });

  it("names the plan it approves, the plans it will not approve with their CSVs, and none when there are none", () => {
    const approving = evaluateOperatorInstall(
      target,
      obs({ subscription: subscription({}), installPlans: [plan("install-1", [PIN])] }),
    );
    assert.equal(approving.message, `operator ns/wmco: approving InstallPlan install-1 for ${PIN}`);
    assert.equal(approving.approve, "install-1");
    const offered = evaluateOperatorInstall(
      target,
      obs({
        subscription: subscription({ installedCSV: "wmco.v10.16.0", currentCSV: NEXT }),
        installPlans: [plan("install-2", [NEXT, "other.v1"]), plan("install-3", [])],
        csvs: [csv("wmco.v10.16.0", "Succeeded")],
      }),
    );
    assert.equal(
      offered.message,
      `operator ns/wmco: waiting for an InstallPlan for ${PIN} (installed: wmco.v10.16.0); ` +
        "not approving install-2 (wmco.v10.18.0, other.v1), install-3 ()",
    );
    const none = evaluateOperatorInstall(target, obs({ subscription: subscription({ currentCSV: NEXT }) }));
    assert.equal(none.message, `operator ns/wmco: waiting for an InstallPlan for ${PIN}`);
  });

  it("names every pending plan a person must approve when nothing is pinned", () => {
    const e = evaluateOperatorInstall(
      { namespace: "ns", subscription: "wmco" },
      obs({
        subscription: subscription({}),
        installPlans: [plan("install-1", [PIN]), plan("install-2", [NEXT])],
      }),
    );
    assert.equal(e.state, "failed");
    assert.match(e.message, /; approve InstallPlan install-1, install-2 yourself or pin startingCSV$/);
  });

  it("lists every retried failure while it is pending, and every one once they persist", () => {
    const at = overTime(
      obs({
        subscription: subscription(
          {
            conditions: [
              condition("CatalogSourcesUnhealthy", "", "Unhealthy"),
              condition("ResolutionFailed", "", ""),
            ],
          },
          "Automatic",
          { sourceNamespace: undefined },
        ),
      }),
    );
    const pending = at(0);
    assert.equal(
      pending.message,
      "operator ns/wmco: resolving; CatalogSourcesUnhealthy: catalog source /redhat-operators: Unhealthy " +
        "(for 0m0s; retried, final after 5m0s); ResolutionFailed: no message (for 0m0s; retried, final after 5m0s)",
    );
    assert.equal(pending.recheckMs, PERSISTENCE_MS);
    assert.equal(
      at(PERSISTENCE_MS).message,
      "operator ns/wmco: CatalogSourcesUnhealthy: catalog source /redhat-operators: Unhealthy (persisted 5m0s, " +
        "past the 5m0s allowed for retries); ResolutionFailed: no message (persisted 5m0s, past the 5m0s allowed for retries)",
    );
    const silent = evaluateOperatorInstall(
      target,
      obs({
        subscription: subscription({
          conditions: [{ type: "CatalogSourcesUnhealthy", status: "True", reason: "" }],
        }),
      }),
    );
    assert.match(
      silent.message,
      /CatalogSourcesUnhealthy: catalog source openshift-marketplace\/redhat-operators: unhealthy/,
    );
  });

  // olm/operator.go transitionCSVState re-checks a Failed CSV: the installed one, or the one an upgrade installs.
  it("fails once a Failed CSV persists, the installed one while an upgrade is pending, or the upgrade's own", () => {
    const installedFailed = overTime(
      obs({
        subscription: subscription({ installedCSV: PIN, currentCSV: NEXT }, "Automatic"),
        csvs: [
          csv(PIN, "Failed", { reason: "InstallCheckFailed", message: "deployment unavailable" }),
          csv(NEXT, "Pending"),
        ],
      }),
      auto,
    );
    assert.equal(installedFailed(0).state, "waiting");
    const failed = installedFailed(PERSISTENCE_MS);
    assert.equal(failed.state, "failed");
    assert.match(
      failed.message,
      /^operator ns\/wmco: ClusterServiceVersion wmco\.v10\.17\.0 failed \(InstallCheckFailed\): deployment unavailable/,
    );
    const upgradeFailed = overTime(
      obs({
        subscription: subscription({ installedCSV: PIN, currentCSV: NEXT }, "Automatic"),
        csvs: [csv(PIN, "Succeeded"), csv(NEXT, "Failed", { message: "requirements not met" })],
      }),
      auto,
    );
    assert.equal(upgradeFailed(0).state, "waiting");
    assert.match(
      upgradeFailed(PERSISTENCE_MS).message,
      /ClusterServiceVersion wmco\.v10\.18\.0 failed: requirements not met/,
    );
  });

  it("with the pinned CSV installed but not yet Succeeded, waits on it, not on a plan, whatever upgrade is offered", () => {
    const unlisted = plan("install-3", []);
    delete (unlisted.spec as Record<string, unknown>).clusterServiceVersionNames;
    const e = evaluateOperatorInstall(
      target,
      obs({
        subscription: subscription({
          installedCSV: PIN,
          currentCSV: NEXT,
          installPlanRef: { name: "install-2" },
        }),
        installPlans: [plan("install-2", [NEXT]), unlisted],
        csvs: [csv(PIN, "Installing")],
      }),
    );
    assert.equal(e.message, `operator ns/wmco: ${PIN} Installing`);
    assert.equal(e.done, 2);
    const other = evaluateOperatorInstall(
      target,
      obs({ subscription: subscription({ currentCSV: NEXT }), installPlans: [unlisted] }),
    );
    assert.equal(
      other.message,
      `operator ns/wmco: waiting for an InstallPlan for ${PIN}; not approving install-3 ()`,
    );
  });
});
