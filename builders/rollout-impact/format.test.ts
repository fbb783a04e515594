import * as assert from "node:assert/strict";
import { machineConfig, MachineConfigArgs } from "../machineconfiguration";
import { formatDuration, impactLine, PoolConfigs, PoolImpact, rolloutImpact } from ".";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEA+tJeMH79euQY0M9qNe7AHHTb+bh9E8m/O+GK2Qg3B a@example.com";
const configs = (...args: MachineConfigArgs[]): PoolConfigs => ({
  machineConfigs: args.map((a) => machineConfig(a)),
});
const files = (...paths: string[]): MachineConfigArgs => ({
  name: "99-infra-x",
  role: "infra",
  files: paths.map((path) => ({ path, contents: { text: "x\n" } })),
});
const line = (after: PoolConfigs, more: Partial<PoolImpact> = {}, machineCount = 3) =>
  impactLine({
    ...rolloutImpact({ pool: "infra", before: { machineConfigs: [] }, after, machineCount }),
    ...more,
  });

// What a preview prints of a pool's render: each phrase is what the MCO then does to its nodes
// (pkg/daemon/update.go performPostConfigChangeNodeDisruptionAction).
describe("rollout impact in words", () => {
  it("says each node's steps: a drain and what follows it, several steps in order, or nothing to disrupt", () => {
    assert.match(
      line(configs(files("/etc/containers/registries.conf"))),
      /^pool infra: new render; 3 nodes drain, then reload crio\.service, 1 at a time, /,
    );
    assert.match(
      line(configs(files("/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt"))),
      /^pool infra: new render; 3 nodes restart coreos-update-ca-trust\.service, restart crio\.service, 1 at a time/,
    );
    assert.equal(
      line(configs({ name: "99-infra-ssh", role: "infra", sshAuthorizedKeys: [KEY] }), {}, 1),
      "pool infra: new render; 1 node apply without disruption, 1 at a time, 1 wave, about 30 s (SSH keys of 99-infra-ssh)",
    );
    // A cluster policy that drains alone.
    const drain = rolloutImpact({
      pool: "infra",
      before: { machineConfigs: [] },
      after: configs(files("/etc/app.conf")),
      machineCount: 3,
      nodeDisruptionPolicy: { files: [{ path: "/etc/app.conf", actions: [{ type: "Drain" }] }] },
    });
    assert.match(impactLine(drain), /^pool infra: new render; 3 nodes drain, 1 at a time, /);
  });

  it("names the first cause and counts the others", () => {
    assert.match(
      line(configs(files("/etc/containers/policy.json", "/etc/containers/registries.d/a.yaml"))),
      /\(file \/etc\/containers\/policy\.json of 99-infra-x and 1 more\)$/,
    );
  });

  it("a duration under a minute in seconds, else in minutes", () => {
    assert.deepEqual([59, 60, 89, 90].map(formatDuration), [
      "about 59 s",
      "about 1 min",
      "about 1 min",
      "about 2 min",
    ]);
  });

  it("says what the change was compared with, a pending render, learned timings and an unpausing", () => {
    const change = configs(files("/etc/chrony.conf"));
    const previous = { against: "previous deployment" as const };
    assert.match(line(change, previous), /; against the previous deployment's inputs$/);
    assert.match(line(change, { pending: true }), /^pool infra: pending render; 3 nodes drain and reboot/);
    assert.match(line(change, { timingsLearned: true }), /, about 12 min learned from the last rollout \(/);
    const none = { machineConfigs: [] };
    assert.equal(
      line(none, previous),
      "pool infra: no new render; nodes unchanged since the previous deployment",
    );
    assert.equal(
      line(none, { ...previous, unpauses: true }),
      "pool infra: no new render; nodes unchanged since the previous deployment; unpausing starts any " +
        "rollout the pool held (unknown without the cluster)",
    );
  });
});
