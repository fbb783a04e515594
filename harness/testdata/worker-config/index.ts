import { MachineConfig } from "../../../index";

new MachineConfig("99-worker-banner", {
  role: "worker",
  files: [{ path: "/etc/issue.d/banner.issue", contents: { text: "managed by Pulumi\n" } }],
  waitTimeouts: { create: "60s", update: "60s", delete: "60s" },
});
