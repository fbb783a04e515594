/**
 * Dynamic resources run as Pulumi's dynamic-provider host runs them
 * (@pulumi/pulumi/cmd/dynamic-provider): the provider is the serialized module text in the `__provider`
 * input, loaded with require-from-string and asked for its `handler`, once per distinct text; secrets
 * are revealed before the provider sees its inputs (the host does not accept secrets).
 */
import type * as pulumi from "@pulumi/pulumi";

const requireFromString = require("require-from-string") as (
  code: string,
  filename?: string,
) => {
  handler: () => pulumi.dynamic.ResourceProvider;
};

export const PROVIDER_KEY = "__provider";

export const DYNAMIC_TYPE_PREFIX = "pulumi-nodejs:dynamic:";

const cache = new Map<string, pulumi.dynamic.ResourceProvider>();

export function dynamicProvider(inputs: Record<string, unknown>): pulumi.dynamic.ResourceProvider {
  const text = inputs[PROVIDER_KEY];
  if (typeof text !== "string" || text === "") {
    throw new Error(`a dynamic resource without its serialized provider (${PROVIDER_KEY})`);
  }
  let provider = cache.get(text);
  if (!provider) {
    provider = requireFromString(text).handler();
    cache.set(text, provider);
  }
  return provider;
}

export interface CheckFailure {
  property: string;
  reason: string;
}

/** check(), as the host does it: the provider's inputs (or the news) with `__provider` kept. */
export async function checkDynamic(
  provider: pulumi.dynamic.ResourceProvider,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  let inputs = news;
  if (provider.check) {
    const result = await provider.check(olds, news);
    const failures = (result.failures ?? []) as CheckFailure[];
    if (failures.length > 0) {
      throw new Error(failures.map((f) => `${f.property}: ${f.reason}`).join("; "));
    }
    if (result.inputs) inputs = result.inputs as Record<string, unknown>;
  }
  return { ...inputs, [PROVIDER_KEY]: news[PROVIDER_KEY] };
}

/** Outputs with `__provider`, as the host returns them so later operations can load the provider. */
export function withProvider(outs: unknown, props: Record<string, unknown>): Record<string, unknown> {
  return { ...((outs ?? {}) as Record<string, unknown>), [PROVIDER_KEY]: props[PROVIDER_KEY] };
}
