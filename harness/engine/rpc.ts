/**
 * The gRPC stubs that ship in @pulumi/pulumi/proto, and values as the engine marshals them into
 * `google.protobuf.Struct`: secrets and unknowns keep Pulumi's signatures, undefined is dropped.
 */
import * as grpc from "@grpc/grpc-js";

export const resourceProto = require("@pulumi/pulumi/proto/resource_pb");
export const resourceRpc = require("@pulumi/pulumi/proto/resource_grpc_pb");
export const engineProto = require("@pulumi/pulumi/proto/engine_pb");
export const engineRpc = require("@pulumi/pulumi/proto/engine_grpc_pb");
export const providerProto = require("@pulumi/pulumi/proto/provider_pb");
export const providerRpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
export const emptyProto = require("google-protobuf/google/protobuf/empty_pb");
const structProto = require("google-protobuf/google/protobuf/struct_pb");
const statusProto = require("@pulumi/pulumi/proto/status_pb");

/** Pulumi's wire marker for a value not known during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** The signature of a resource reference (the value under the signature key, as a secret's). */
export const RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";

export type Props = Record<string, unknown>;

export interface StructLike {
  toJavaScript(): Props;
}

export function fromStruct(struct: StructLike | undefined): Props {
  return struct ? struct.toJavaScript() : {};
}

function defined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : defined(v)));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, defined(v)]),
    );
  }
  return value;
}

export function toStruct(props: Props): StructLike {
  return structProto.Struct.fromJavaScript(defined(props));
}

/** True when the value, or anything in it, is unknown. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

export type Callback<T> = (error: grpc.ServiceError | null, value?: T) => void;

/** A unary gRPC call as a promise. */
export function call<Req, Res>(client: Record<string, unknown>, method: string, request: Req): Promise<Res> {
  return new Promise((resolve, reject) => {
    const fn = client[method] as (req: Req, callback: Callback<Res>) => void;
    fn.call(client, request, (error, value) => (error ? reject(error) : resolve(value as Res)));
  });
}

/** The message a provider put into a gRPC error, without gRPC's `2 UNKNOWN: ` prefix. */
export function grpcMessage(error: unknown): string {
  const e = error as { details?: string; message?: string };
  return e.details || (e.message ?? String(error)).replace(/^\d+ [A-Z_]+: /, "");
}

/** A resource its provider made but could not initialize (ErrorResourceInitFailed): kept with its id. */
export interface InitFailure {
  id: string;
  properties: Props;
  reasons: string[];
}

/** The init failure a provider packed into a gRPC error's status details, if any. */
export function initFailure(error: unknown): InitFailure | undefined {
  const metadata = (error as Partial<grpc.ServiceError> | undefined)?.metadata;
  const details = metadata?.get("grpc-status-details-bin")[0];
  if (!details) return undefined;
  const status = statusProto.Status.deserializeBinary(details);
  const any = (status.getDetailsList() as Array<Record<string, () => unknown>>).find((d) =>
    String(d.getTypeUrl()).endsWith("pulumirpc.ErrorResourceInitFailed"),
  );
  if (!any) return undefined;
  const detail = providerProto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
  return {
    id: detail.getId() as string,
    properties: fromStruct(detail.getProperties() as StructLike | undefined),
    reasons: detail.getReasonsList() as string[],
  };
}
