import * as pulumi from "@pulumi/pulumi";
import { MachineConfig } from "../../../index";

const config = new pulumi.Config();

new MachineConfig("99-worker-banner", {
  role: "worker",
  files: [
    {
      path: "/etc/issue.d/banner.issue",
      contents: { text: config.get("banner") ?? "managed by Pulumi\n" },
    },
  ],
  waitTimeouts: { create: "60s", update: "60s", delete: "60s" },
});
