import { FieldError } from "../schema";

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** `metav1.Status`, the body of every error answer. */
export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** An error that is answered with a Status; anything else thrown while serving becomes a 500. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toStatus(): Status {
    const status: Status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) status.details = this.details;
    return status;
  }
}

/** `machinesets.machine.openshift.io`: how errors name a resource. */
export function qualifiedResource(plural: string, group: string): string {
  return group ? `${plural}.${group}` : plural;
}

export const errors = {
  badRequest: (message: string) => new ApiError(400, "BadRequest", message),
  unauthorized: () => new ApiError(401, "Unauthorized", "Unauthorized"),
  notFound: (plural: string, group: string, name: string) =>
    new ApiError(404, "NotFound", `${qualifiedResource(plural, group)} "${name}" not found`, {
      name,
      group,
      kind: plural,
    }),
  pathNotFound: () => new ApiError(404, "NotFound", "the server could not find the requested resource"),
  methodNotAllowed: (method: string) =>
    new ApiError(
      405,
      "MethodNotAllowed",
      `the server does not allow this method on the requested resource: ${method}`,
    ),
  alreadyExists: (plural: string, group: string, name: string) =>
    new ApiError(409, "AlreadyExists", `${qualifiedResource(plural, group)} "${name}" already exists`, {
      name,
      group,
      kind: plural,
    }),
  conflict: (plural: string, group: string, name: string, detail: string) =>
    new ApiError(
      409,
      "Conflict",
      `Operation cannot be fulfilled on ${qualifiedResource(plural, group)} "${name}": ${detail}`,
      {
        name,
        group,
        kind: plural,
      },
    ),
  gone: (message: string) => new ApiError(410, "Expired", message),
  tooLarge: (limit: number) =>
    new ApiError(413, "RequestEntityTooLarge", `Request entity too large: limit is ${limit}`),
  unsupportedMediaType: (contentType: string, accepted: string[]) =>
    new ApiError(
      415,
      "UnsupportedMediaType",
      `the body of the request was in an unknown format (${contentType}) - accepted media types include: ${accepted.join(", ")}`,
    ),
  invalid: (kind: string, group: string, name: string, message: string, fieldErrors: FieldError[]) =>
    new ApiError(422, "Invalid", message, {
      name,
      group,
      kind,
      causes: fieldErrors.map((e) => ({ reason: e.reason, message: e.message, field: e.field })),
    }),
  internal: (message: string) => new ApiError(500, "InternalError", `Internal error occurred: ${message}`),
};
