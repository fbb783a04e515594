import * as pulumi from "@pulumi/pulumi";

/** Each create and delete, in $MADE_LOG when set, so that a test sees the order of a replacement's halves. */
function note(line: string): void {
  if (process.env.MADE_LOG) require("node:fs").appendFileSync(process.env.MADE_LOG, `${line}\n`);
}

/**
 * Made, then ready only once $MADE_FAILS is unset in the provider host: an error carrying the id is an
 * init failure. It has no `diff`: the engine diffs its inputs itself.
 */
const provider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: { size: number; spec: { zone: string } }) {
    const id = `made-${inputs.size}`;
    if (process.env.MADE_FAILS) {
      const reason = "made, but not ready";
      throw Object.assign(new Error(reason), { id, properties: { ready: false }, reasons: [reason] });
    }
    note(`create ${id} in ${inputs.spec.zone}`);
    return { id, outs: { ready: true } };
  },
  async update() {
    return { outs: { ready: true } };
  },
  async delete(id: string) {
    note(`delete ${id}`);
  },
};

class Made extends pulumi.dynamic.Resource {
  constructor(
    name: string,
    args: { size: number; spec: { zone: string } },
    opts: pulumi.CustomResourceOptions,
  ) {
    super(provider, name, args, opts);
  }
}

const config = new pulumi.Config();
new Made(
  "made",
  { size: config.getNumber("size") ?? 1, spec: { zone: config.get("zone") ?? "a" } },
  {
    replaceOnChanges: config.getObject<string[]>("replaceOnChanges"),
    deleteBeforeReplace: config.getBoolean("deleteBeforeReplace"),
  },
);
