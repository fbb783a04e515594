/**
 * How a dynamic resource looks on the wire: its type token's prefix and the input that carries its
 * serialized provider, which the dynamic-provider host loads.
 */

export const PROVIDER_KEY = "__provider";

export const DYNAMIC_TYPE_PREFIX = "pulumi-nodejs:dynamic:";
