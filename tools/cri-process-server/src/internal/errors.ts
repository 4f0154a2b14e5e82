import { CRIError } from "@skiff/cri-api";

// Shorthands for the statuses the process runtime answers with. The grpc handler wrapper turns a
// thrown CRIError into its gRPC status; anything else becomes Internal.

export function notFound(method: string, details: string): CRIError {
  return new CRIError({ code: "NotFound", method, details });
}

export function invalidArgument(method: string, details: string): CRIError {
  return new CRIError({ code: "InvalidArgument", method, details });
}

export function failedPrecondition(method: string, details: string): CRIError {
  return new CRIError({ code: "FailedPrecondition", method, details });
}

export function alreadyExists(method: string, details: string): CRIError {
  return new CRIError({ code: "AlreadyExists", method, details });
}

export function unknownError(method: string, details: string, cause?: unknown): CRIError {
  return new CRIError({ code: "Unknown", method, details, cause });
}
