import { CustomResourceOptions, dynamic, Input, Output, secret } from "@pulumi/pulumi";
import { holdPool, releasePool } from "../waiting/pool-hold";
import {
  changedInputs,
  CheckFailure,
  checkCommon,
  checkName,
  checkNames,
  UNKNOWN,
  waiterOptions,
} from "./common";
import { currentCredentials, explainRejectedCredentials } from "./credentials";
import { carriedProvider, ProviderOf } from "./schema";
import * as self from "./pool-hold";

/** How long reading and writing the pool may take. */
const TIMEOUT_MS = 120_000;

interface PoolHoldInputs {
  kubeconfig: string;
  pool: string;
  after: string[];
  step: "pause" | "resume";
  contentHash?: string;
}

function checkStep(step: unknown): CheckFailure[] {
  if (step === UNKNOWN || step === "pause" || step === "resume") return [];
  return [{ property: "step", reason: `step must be "pause" or "resume", got ${JSON.stringify(step)}` }];
}

/** Runs the step with the credentials current in the provider's host, and logs what it did. */
async function run(inputs: PoolHoldInputs): Promise<{ byHand: boolean }> {
  const credentials = currentCredentials(inputs.kubeconfig);
  const { log } = require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
  if (credentials.note) void log.warn(`PoolHold ${inputs.pool}: ${credentials.note}`);
  const options = { ...inputs, kubeconfig: credentials.kubeconfig, timeoutMs: TIMEOUT_MS };
  const outcome = await (inputs.step === "pause" ? holdPool(options) : releasePool(options)).catch(
    (e: unknown) => {
      throw explainRejectedCredentials(e, credentials.source);
    },
  );
  void (outcome.byHand ? log.warn(outcome.line) : log.info(outcome.line));
  return { byHand: outcome.byHand };
}

/**
 * The provider of `PoolHold`: create and update run the step (a change of the configuration it holds
 * for, `contentHash`, runs it again); read keeps what it saw; delete does nothing, a pool being left
 * as the last step left it.
 */
export const poolHoldProvider: dynamic.ResourceProvider = {
  async check(_olds: Record<string, unknown>, news: Record<string, unknown>) {
    const failures = [
      ...checkCommon(news),
      ...checkName(news, "pool"),
      ...checkNames(news, "after", true),
      ...checkStep(news.step),
    ];
    return { inputs: news, failures };
  },
  async diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
    const replaces = changedInputs(olds, news, ["pool", "step"]);
    const changes = replaces.length > 0 || changedInputs(olds, news, ["after", "contentHash"]).length > 0;
    return { changes, replaces, deleteBeforeReplace: false };
  },
  async create(inputs: PoolHoldInputs) {
    const { byHand } = await run(inputs);
    return { id: `${inputs.step}/${inputs.pool}`, outs: { ...inputs, byHand } };
  },
  async update(_id: string, _olds: PoolHoldInputs, news: PoolHoldInputs) {
    const { byHand } = await run(news);
    return { outs: { ...news, byHand } };
  },
  async read(id: string, props: PoolHoldInputs) {
    return { id, props };
  },
};

export interface PoolHoldArgs {
  /** Kubeconfig YAML of the cluster; stored as a secret whatever is passed. */
  kubeconfig: Input<string>;
  /** The MachineConfigPool held. */
  pool: Input<string>;
  /** The pools it rolls out after. */
  after: Input<Input<string>[]>;
  /** `pause` before the pool's new configuration is applied, `resume` once the pools before it converged. */
  step: Input<"pause" | "resume">;
  /** Hash of the configuration held for: a change runs the step again. */
  contentHash?: Input<string>;
}

/**
 * One step of an ordered rollout (provider/waiting/pool-hold.ts): `pause` holds a pool before its new
 * configuration is applied, `resume` lets it roll out once the waiters of the pools before it, which
 * it depends on, are done. A pool someone paused by hand is left paused (`byHand`).
 */
export class PoolHold extends dynamic.Resource {
  /** The pool was paused by someone else, and left so. */
  declare readonly byHand: Output<boolean>;
  constructor(name: string, args: PoolHoldArgs, opts?: CustomResourceOptions) {
    super(
      carriedProvider(poolHoldProvider, (): ProviderOf => self.poolHoldProvider),
      name,
      { ...args, kubeconfig: secret(args.kubeconfig), byHand: undefined },
      waiterOptions(opts),
      undefined,
      "PoolHold",
    );
  }
}
