import * as assert from "node:assert/strict";
import { InputError } from "../errors";
import { machineConfig, MachineConfigArgs } from "../machineconfiguration";
import { PoolConfigs, resolveMaxUnavailable, rolloutImpact, withTimings } from ".";

const configs = (...args: MachineConfigArgs[]): PoolConfigs => ({
  machineConfigs: args.map((a) => machineConfig(a)),
});
const file = (path: string, text = "x\n"): MachineConfigArgs => ({
  name: "99-infra-x",
  role: "infra",
  files: [{ path, contents: { text } }],
});
const change = (after: PoolConfigs, before: PoolConfigs = { machineConfigs: [] }) =>
  rolloutImpact({ pool: "infra", before, after, machineCount: 3 });

// openshift/machine-config-operator pkg/controller/node/node_controller.go maxUnavailable
// (intstr.GetScaledValueFromIntOrPercent rounding down, at least 1), which the pool waiter shares.
describe("rollout impact: a pool's maxUnavailable", () => {
  it("fails at preview on a value that is no whole number or percentage, naming it", () => {
    for (const [value, why] of [
      ["two", '"two" is neither a whole number nor a percentage'],
      [-1, "-1 is not allowed: use a whole number or a percentage"],
      [1.5, "1.5 is not allowed: use a whole number or a percentage"],
    ] as const)
      assert.throws(
        () => resolveMaxUnavailable(value, 3),
        (e: InputError) => e instanceof InputError && e.propertyPath === "maxUnavailable" && e.reason === why,
      );
  });
});

// pkg/daemon/update.go calculatePostConfigChangeNodeDisruptionAction and performPostConfigChange
// NodeDisruptionAction: a node applies the files, then runs each action's step in order.
describe("rollout impact: what each node does, and how long it takes", () => {
  it("nothing renders anew: no action, no step, no cause, no time, whatever the timings", () => {
    const same = change(configs(file("/etc/motd")), configs(file("/etc/motd")));
    const { newRender, action, drain, steps, causes, waves, perNodeSeconds, durationSeconds } = same;
    assert.deepEqual(
      [newRender, action, drain, steps, causes, waves, perNodeSeconds, durationSeconds],
      [false, "none", false, [], [], 0, 0, 0],
    );
    assert.equal(withTimings(same, { applySeconds: 60 }), same);
  });

  it("a daemon-reload and a service restart: each step said in order and timed as what it is", () => {
    // The kubelet's image credential provider drop-in (defaultClusterPolicies).
    const dropin = change(
      configs(file("/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf")),
    );
    assert.deepEqual(
      [dropin.action, dropin.drain, dropin.steps],
      ["restart", false, ["daemon-reload", "restart kubelet.service"]],
    );
    // Applying (30 s), a daemon-reload (5 s) and a restart (15 s).
    assert.deepEqual([dropin.perNodeSeconds, dropin.durationSeconds], [50, 150]);
    const timed = withTimings(dropin, { applySeconds: 10, reloadSeconds: 1, restartSeconds: 100 });
    assert.deepEqual([timed.perNodeSeconds, timed.durationSeconds], [111, 333]);
  });
});
