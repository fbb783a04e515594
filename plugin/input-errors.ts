/**
 * Bad input reaches a program in any language as Pulumi's InputPropertiesError, each property with its
 * reason. A component reports bad input as a TypeScript program sees it: every output and every child
 * registration fails with the component's `pulumi.InputPropertiesError`, and a child's failed
 * registration is an unhandled rejection. The SDK's provider host answers the Constructs in flight
 * with such a rejection as it is (status UNKNOWN, no property), before Construct's own handling, which
 * would give an InputPropertiesError INVALID_ARGUMENT with the properties in the status details. So an
 * input error is given that status here first, and reaches the engine the same whichever way it goes.
 */
import * as pulumi from "@pulumi/pulumi";
import * as path from "node:path";

// The SDK's own gRPC and protobuf modules: the status goes out through its server.
const sdk = path.dirname(require.resolve("@pulumi/pulumi"));
const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdk] }));
const anyProto = require(require.resolve("google-protobuf/google/protobuf/any_pb", { paths: [sdk] }));
const statusProto = require("@pulumi/pulumi/proto/status_pb");
const errorsProto = require("@pulumi/pulumi/proto/errors_pb");

type Problem = { propertyPath: string; reason: string };

function problemsOf(error: unknown): { message: string; problems: readonly Problem[] } | undefined {
  if (pulumi.InputPropertiesError.isInstance(error))
    return { message: error.message, problems: error.errors };
  if (pulumi.InputPropertyError.isInstance(error)) {
    return { message: "", problems: [{ propertyPath: error.propertyPath, reason: error.reason }] };
  }
  return undefined;
}

/** The gRPC status of an InputPropertiesError: INVALID_ARGUMENT, its message, each property in the details. */
export function withInputStatus(error: unknown): void {
  const found = problemsOf(error);
  if (!found) return;
  const detail = new errorsProto.InputPropertiesError();
  for (const problem of found.problems) {
    const property = new errorsProto.InputPropertiesError.PropertyError();
    property.setPropertyPath(problem.propertyPath);
    property.setReason(problem.reason);
    detail.addErrors(property);
  }
  const any = new anyProto.Any();
  any.pack(detail.serializeBinary(), "pulumirpc.InputPropertiesError");
  const status = new statusProto.Status();
  status.setCode(grpc.status.INVALID_ARGUMENT);
  status.setMessage(found.message);
  status.addDetails(any);
  const metadata = new grpc.Metadata();
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  for (const [key, value] of Object.entries({
    code: grpc.status.INVALID_ARGUMENT,
    details: found.message,
    metadata,
  })) {
    Object.defineProperty(error, key, { value, enumerable: false, configurable: true });
  }
}

/** Gives every input error that goes unhandled its status; called before the provider host starts. */
export function reportInputErrors(): void {
  process.on("unhandledRejection", withInputStatus);
  process.on("uncaughtException", withInputStatus);
}
